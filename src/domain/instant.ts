// Instants as operators type them on a command line or in a setting: RFC 3339 with the offset
// spelled out, so a value never depends on the machine's time zone.

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i

/** An RFC 3339 date-time with its offset, as Unix ms; null for anything else. */
export function parseDateTime(raw: string): number | null {
  if (!DATE_TIME.test(raw)) return null
  const ms = Date.parse(raw)
  return Number.isNaN(ms) ? null : ms
}

/** A date-time as parseDateTime reads it, or a YYYY-MM-DD date read as its UTC midnight. */
export function parseInstant(raw: string): number | null {
  return parseDateTime(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw)
}
