// The quarter-hour window an end-to-end Polymarket run works in: this process's wall clock shifted
// (shifted-clock.ts) so that the current window's minute 13 begins `leadMs` from now — time to start
// the service and set the books — whatever the real time is. Call it once, at module load, before
// any fixture starts; pass `shiftMs` to the service through shiftedClockEnv.
import { shiftDateNow } from './shifted-clock.ts'

const MINUTE = 60_000

export type ShiftedWindow = {
  /** the window's start in Unix seconds, as its slug names it */
  S: number
  opensAt: number
  minute13: number
  closesAt: number
  shiftMs: number
}

export function shiftToMinute13(leadMs: number): ShiftedWindow {
  const realNow = Date.now()
  const S = Math.floor(realNow / 900_000) * 900
  const opensAt = S * 1000
  const minute13 = opensAt + 13 * MINUTE
  const shiftMs = minute13 - leadMs - realNow
  shiftDateNow(shiftMs)
  return { S, opensAt, minute13, closesAt: opensAt + 15 * MINUTE, shiftMs }
}
