// The exchange's own status and schedule (venue facts §1.13): whether trading is permitted now, and
// whether a pause is one the venue scheduled (the weekly Thursday 03:00–05:00 ET maintenance, a
// listed maintenance window, or a gap in the standard hours) or an outage. Pure parsing and maths.

import { malformed, type Parsed, parsed } from '../venue-http/parsed.ts'
import { parseRfc3339 } from './market.ts'

export type ExchangeStatus = {
  exchangeActive: boolean
  tradingActive: boolean
  /** epoch ms, when the venue gives one */
  resumeAt: number | null
}

/**
 * A weekly template of sessions in ET minutes of the day, valid between two instants. A session's
 * close may pass 1440: one that crosses midnight runs on into the next day.
 */
type StandardHours = { from: number; to: number; sessions: ReadonlyMap<string, Array<[number, number]>> }

export type ExchangeSchedule = {
  standardHours: StandardHours[]
  maintenance: Array<{ from: number; to: number }>
  /** standard-hours templates left out because a session did not parse (their days say nothing) */
  unreadableTemplates: number
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The matching engine KXBTC15M trades on (venue facts §1.13, §2.3): crypto events live on
 * `exchange_index` 2, which the venue names "Crypto".
 */
export const CRYPTO_EXCHANGE_INDEX = 2

/**
 * The crypto engine's entry of `exchange_index_statuses[]`. The entry's exact shape is not in the
 * reference [U], so every plausible form is taken: the index as a number or a numeric string, or
 * only the name "Crypto" (any case); flags as booleans. null when no entry names the engine.
 */
function cryptoEngineEntry(list: unknown): Record<string, unknown> | null {
  if (!Array.isArray(list)) return null
  for (const entry of list) {
    if (!isRecord(entry)) continue
    const index = entry.exchange_index
    const byIndex =
      (typeof index === 'number' || (typeof index === 'string' && index.trim() !== '')) &&
      Number(index) === CRYPTO_EXCHANGE_INDEX
    const name = entry.name ?? entry.exchange_name
    const byName = index === undefined && typeof name === 'string' && name.trim().toLowerCase() === 'crypto'
    if (byIndex || byName) return entry
  }
  return null
}

/**
 * `GET /exchange/status` (also sent with a 500, 503 or 504, as the venue's OpenAPI lists). With one
 * entry per matching engine in `exchange_index_statuses[]`, the crypto engine's own flags decide:
 * a pause of that engine alone pauses KXBTC15M, a pause of another engine does not. Without the
 * list (or without a readable crypto entry) the top-level flags do, as before.
 */
export function parseExchangeStatus(body: unknown): Parsed<ExchangeStatus> {
  if (!isRecord(body)) return malformed('exchange_status')
  if (typeof body.trading_active !== 'boolean') return malformed('trading_active')
  if (typeof body.exchange_active !== 'boolean') return malformed('exchange_active')
  const resume = body.exchange_estimated_resume_time
  const engine = cryptoEngineEntry(body.exchange_index_statuses)
  const flags =
    engine !== null && typeof engine.trading_active === 'boolean'
      ? {
          exchangeActive:
            typeof engine.exchange_active === 'boolean' ? engine.exchange_active : body.exchange_active,
          tradingActive: engine.trading_active,
          resume: engine.exchange_estimated_resume_time ?? resume,
        }
      : { exchangeActive: body.exchange_active, tradingActive: body.trading_active, resume }
  const resumeAt = flags.resume === undefined || flags.resume === null ? null : parseRfc3339(flags.resume)
  return parsed({
    exchangeActive: flags.exchangeActive,
    tradingActive: flags.tradingActive && flags.exchangeActive,
    resumeAt,
  })
}

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const
const DAY_MINUTES = 24 * 60
const HHMM = /^(\d{2}):(\d{2})$/

function minuteOfDay(text: unknown): number | null {
  if (typeof text !== 'string') return null
  const m = HHMM.exec(text)
  if (!m) return null
  const minutes = Number(m[1]) * 60 + Number(m[2])
  return Number(m[2]) < 60 && minutes <= DAY_MINUTES ? minutes : null
}

/**
 * One session as a span of minutes. A close at `00:00` or `24:00` is the end of the day; a close
 * before the open crosses midnight (its close lands past 1440). null when either time does not parse.
 */
function sessionSpan(session: unknown): [number, number] | null {
  if (!isRecord(session)) return null
  const open = minuteOfDay(session.open_time)
  const close = minuteOfDay(session.close_time)
  if (open === null || close === null || open >= DAY_MINUTES) return null
  if (close === 0 || close === DAY_MINUTES) return [open, DAY_MINUTES]
  return close > open ? [open, close] : [open, close + DAY_MINUTES]
}

/**
 * `GET /exchange/schedule`. How the venue lists the Thursday pause is undocumented (venue facts §1.13
 * [U]), so both forms are read: maintenance windows, and sessions that leave the pause out. A
 * template with a session that does not parse is left out whole (and counted): a day with a session
 * missing would otherwise read as closed at every minute, and real outages as scheduled. Only a body
 * without the schedule object is malformed.
 */
export function parseSchedule(body: unknown): Parsed<ExchangeSchedule> {
  if (!isRecord(body) || !isRecord(body.schedule)) return malformed('schedule')
  const { standard_hours: hours, maintenance_windows: windows } = body.schedule
  const standardHours: StandardHours[] = []
  let unreadableTemplates = 0
  for (const entry of Array.isArray(hours) ? hours : []) {
    if (!isRecord(entry)) continue
    const from = parseRfc3339(entry.start_time)
    const to = parseRfc3339(entry.end_time)
    if (from === null || to === null) continue
    const sessions = new Map<string, Array<[number, number]>>()
    let readable = true
    for (const day of DAYS) {
      const list = entry[day]
      // a day the template does not give is unknown, not closed: nothing is inferred from it
      if (!Array.isArray(list)) continue
      const spans = list.map(sessionSpan)
      if (spans.some((span) => span === null)) readable = false
      sessions.set(
        day,
        spans.filter((span) => span !== null),
      )
    }
    if (readable) standardHours.push({ from, to, sessions })
    else unreadableTemplates++
  }
  const maintenance: ExchangeSchedule['maintenance'] = []
  for (const w of Array.isArray(windows) ? windows : []) {
    if (!isRecord(w)) continue
    const from = parseRfc3339(w.start_datetime)
    const to = parseRfc3339(w.end_datetime)
    if (from !== null && to !== null && to > from) maintenance.push({ from, to })
  }
  return parsed({ standardHours, maintenance, unreadableTemplates })
}

const EASTERN = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  weekday: 'long',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
})

/** The ET weekday (lower case) and minute of the day of an instant. */
export function easternClock(at: number): { day: string; minute: number } {
  const parts = Object.fromEntries(EASTERN.formatToParts(at).map((p) => [p.type, p.value]))
  return {
    day: String(parts.weekday).toLowerCase(),
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  }
}

/** The venue's documented weekly trading pause: Thursday 03:00–05:00 ET (venue facts §1.13). */
export function inWeeklyPause(at: number): boolean {
  const { day, minute } = easternClock(at)
  return day === 'thursday' && minute >= 3 * 60 && minute < 5 * 60
}

/**
 * True when `at` falls in a pause the venue announced: the weekly Thursday window, a listed
 * maintenance window, or outside every session of a standard-hours template valid at `at`.
 */
export function isScheduledPause(schedule: ExchangeSchedule | null, at: number): boolean {
  if (inWeeklyPause(at)) return true
  if (!schedule) return false
  if (schedule.maintenance.some((w) => at >= w.from && at < w.to)) return true
  const template = schedule.standardHours.find((h) => at >= h.from && at < h.to)
  if (!template) return false
  const { day, minute } = easternClock(at)
  const sessions = template.sessions.get(day)
  if (sessions === undefined) return false
  const open = (spans: ReadonlyArray<[number, number]> | undefined, m: number) =>
    spans?.some(([from, to]) => m >= from && m < to) === true
  // a session of the day before that crossed midnight is still open
  const dayBefore = DAYS[(DAYS.indexOf(day as (typeof DAYS)[number]) + 6) % 7]
  return !open(sessions, minute) && !open(template.sessions.get(dayBefore ?? day), minute + DAY_MINUTES)
}
