// Instants as operators type them on a command line or in a setting: RFC 3339 with the offset
// spelled out, so a value never depends on the machine's time zone.

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i

/**
 * An RFC 3339 date-time with its offset, as Unix ms; null for anything else, a day the month does not
 * have (2026-02-30) or hour 24 included: Date.parse rolls those into the next month or day.
 */
export function parseDateTime(raw: string): number | null {
  if (!DATE_TIME.test(raw)) return null
  const ms = Date.parse(raw)
  return Number.isNaN(ms) || !isCalendarTime(raw) ? null : ms
}

/** The date and time fields name a day of that month and a time of that day, as written. */
function isCalendarTime(raw: string): boolean {
  const [year, month, day, hour] = [
    raw.slice(0, 4),
    raw.slice(5, 7),
    raw.slice(8, 10),
    raw.slice(11, 13),
  ].map(Number)
  // setUTCFullYear, not Date.UTC, which reads years 0–99 as 1900–1999
  const date = new Date(0)
  date.setUTCFullYear(year as number, (month as number) - 1, day as number)
  return date.getUTCMonth() === (month as number) - 1 && date.getUTCDate() === day && (hour as number) < 24
}

/** A date-time as parseDateTime reads it, or a YYYY-MM-DD date read as its UTC midnight. */
export function parseInstant(raw: string): number | null {
  return parseDateTime(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw)
}
