// A window that recurs every week at a time of day in New York (US Eastern, daylight saving
// followed): Polymarket's weekly matching-engine restart (venue facts §3.4.7), say. Pure.
import { easternOffset } from './ticker.ts'

export const WEEKDAYS = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
] as const

export type WeeklyWindow = {
  /** 0 = Sunday … 6 = Saturday, in New York */
  weekday: number
  /** minutes after New York midnight the window starts */
  startMinute: number
  minutes: number
}

const DAY_MINUTES = 24 * 60

/** Whether `at` (epoch ms) falls in the window, which may run on past midnight into the next day. */
export function inWeeklyWindow(window: WeeklyWindow, at: number): boolean {
  const local = new Date(at + easternOffset(at))
  const minuteOfWeek = local.getUTCDay() * DAY_MINUTES + local.getUTCHours() * 60 + local.getUTCMinutes()
  const start = window.weekday * DAY_MINUTES + window.startMinute
  const sinceStart = (minuteOfWeek - start + 7 * DAY_MINUTES) % (7 * DAY_MINUTES)
  return sinceStart < window.minutes
}

/** `tuesday 07:00 5`: the weekday (its first three letters will do), the New York time, the minutes. */
export function parseWeeklyWindow(text: string): WeeklyWindow | null {
  const m = /^([a-z]{3,9})\s+(\d{2}):(\d{2})\s+(\d{1,4})$/i.exec(text.trim())
  if (!m) return null
  const name = m[1]!.toLowerCase()
  const weekday = WEEKDAYS.findIndex((d) => d === name || d.slice(0, 3) === name)
  const hour = Number(m[2])
  const minute = Number(m[3])
  const minutes = Number(m[4])
  if (weekday < 0 || hour > 23 || minute > 59 || minutes < 1 || minutes > 7 * DAY_MINUTES) return null
  return { weekday, startMinute: hour * 60 + minute, minutes }
}
