// The simulated venue pauses trading as Kalshi does, Thursday 03:00–05:00 ET (venue facts §1.13), and
// no reading is taken meanwhile: no signal is emitted. The stream service runs at SIM_SPEED=60 from
// the wall clock's present, so a run started on a Wednesday night or a Thursday morning (ET) meets
// that pause within minutes — two wall minutes in which a stream round collects no signal at all.
// Before a round, the benchmark reads the service's clock (GET /v1/health `time`) and, when the pause
// falls within the round, waits until it is over.
import { setTimeout as sleep } from 'node:timers/promises'
import { SIM_PARAMS } from '../src/feeds/sim/sim-params.ts'
import { isTradingPaused } from '../src/feeds/sim/weekly-pause.ts'
import { rawRequest } from '../test/support/raw-request.ts'

const MINUTE_MS = 60_000
/** After the pause the engine needs a reading or two before the first signal. */
const RESUME_MARGIN_MS = 3 * MINUTE_MS

/** The service's virtual now, from its health answer. */
async function serviceTime(url: string): Promise<number> {
  const res = await rawRequest(`${url}/v1/health`)
  const time = (JSON.parse(res.body.toString()) as { time?: unknown }).time
  const ms = typeof time === 'string' ? Date.parse(time) : Number.NaN
  if (!Number.isFinite(ms)) throw new Error(`GET /v1/health gave no time: ${res.body.toString()}`)
  return ms
}

/**
 * Virtual ms from `from` to the end (plus a margin) of the last paused minute within `spanMs` of it;
 * 0 when the venue trades throughout.
 */
export function pauseWithin(from: number, spanMs: number): number {
  let lastPaused: number | null = null
  for (let at = from; at <= from + spanMs; at += MINUTE_MS)
    if (isTradingPaused(SIM_PARAMS.pause, at)) lastPaused = at
  // A pause that began within the span runs on past it: follow it to its end.
  if (lastPaused !== null)
    while (isTradingPaused(SIM_PARAMS.pause, lastPaused + MINUTE_MS)) lastPaused += MINUTE_MS
  return lastPaused === null ? 0 : lastPaused + MINUTE_MS + RESUME_MARGIN_MS - from
}

/** Waits, when the simulated venue's weekly pause falls within the next `roundS` wall seconds. */
export async function waitOutVenuePause(
  url: string,
  speed: number,
  roundS: number,
  log: (line: string) => void,
): Promise<void> {
  const now = await serviceTime(url)
  const virtualMs = pauseWithin(now, roundS * 1000 * speed)
  if (virtualMs === 0) return
  const wallMs = Math.ceil(virtualMs / speed)
  log(
    `  the simulated venue's weekly trading pause (Thursday 03:00–05:00 ET; service time ${new Date(now).toISOString()}) falls within the next round: no signal until it ends; waiting ${(wallMs / 1000).toFixed(0)} s`,
  )
  await sleep(wallMs)
}
