// `contest-signals sim tape --venue polymarket` (decisions §12, §14): the honest sandbox written as a
// tape in Polymarket's shapes, second by second — each exchange's messages as a client receives them
// (as the Kalshi tape), every change of each window's Gamma event body (listed a quarter ahead, live,
// ended, resolved, its price to beat and final price published minutes after the end), and both
// tokens' CLOB books every 2 s of each live window. It reads the sandbox only through the surface it
// presents the venue with (sim/polymarket-world.ts), never its internals.
import type { TapeHeader } from '../../tape/tape-format.ts'
import { WRITE_AHEAD_BYTES } from '../../tape/tape-writer.ts'
import { POLYMARKET_SIM_SERIES, type SimPolymarketWindow, simPolymarketOf } from '../sim/polymarket-world.ts'
import type { SimWorld } from '../sim/sim-world.ts'
import { SIM_TAPE_BOOK_EVERY_MS, type SimTapeSink, writeSpotMessages } from './sim-tape.ts'

const SECOND_MS = 1_000
const DAY_MS = 86_400_000
const QUARTER_MS = 900_000
/** Written after the last window closes: its result and its prices come minutes later on Polymarket. */
export const POLYMARKET_SIM_TAPE_TAIL_MS = 12 * 60_000

export type PolymarketSimTapeOptions = {
  world: SimWorld
  /** first window opens here (a quarter hour) */
  from: number
  days: number
  /** spot written before the first window opens: what the first readings look back at (from the models) */
  warmupMs: number
  origin: string
  onProgress?: (at: number, from: number, to: number) => void
}

export function polymarketSimTapeHeader(
  opts: Pick<PolymarketSimTapeOptions, 'world' | 'from' | 'days' | 'origin'>,
): TapeHeader {
  return {
    tape: 1,
    venue: 'polymarket',
    series: [POLYMARKET_SIM_SERIES],
    sources: [...opts.world.sources.names],
    from: new Date(opts.from).toISOString(),
    to: new Date(opts.from + opts.days * DAY_MS + POLYMARKET_SIM_TAPE_TAIL_MS).toISOString(),
    origin: opts.origin,
  }
}

type Followed = { w: SimPolymarketWindow; lastBody: string }

/** Writes the records of the tape (the header is the writer's) into `sink`. */
export async function writePolymarketSimTape(
  opts: PolymarketSimTapeOptions,
  sink: SimTapeSink,
): Promise<void> {
  const { world } = opts
  const venue = simPolymarketOf(world)
  const names = world.sources.names
  const start = opts.from - opts.warmupMs
  const lastOpen = opts.from + opts.days * DAY_MS
  const end = lastOpen + POLYMARKET_SIM_TAPE_TAIL_MS
  const followed = new Map<string, Followed>()
  const lastMessage = names.map(() => Number.NEGATIVE_INFINITY)

  for (let s = start; s <= end; s += SECOND_MS) {
    writeSpotMessages(world, s, lastMessage, sink)

    // the current window and the next, as the adapter computes their slugs
    if (s >= opts.from - QUARTER_MS && s < lastOpen) {
      const current = Math.floor(s / QUARTER_MS) * QUARTER_MS
      for (const opensAt of [current, current + QUARTER_MS]) {
        if (opensAt < opts.from || opensAt >= lastOpen) continue
        const w = venue.window(opensAt)
        if (!followed.has(w.slug)) followed.set(w.slug, { w, lastBody: '' })
      }
    }

    for (const [slug, f] of followed) {
      const body = venue.eventBody(f.w, s)
      const text = JSON.stringify(body)
      if (text !== f.lastBody) {
        f.lastBody = text
        sink.write({ t: s, k: 'market', m: body })
      }
      const { opensAt, expiresAt, upToken, downToken } = f.w
      if (s >= opensAt && s < expiresAt && (s - opensAt) % SIM_TAPE_BOOK_EVERY_MS === 0) {
        sink.write({ t: s, k: 'book', ticker: slug, token: upToken, ob: venue.bookBody(f.w, 'up', s) })
        sink.write({ t: s, k: 'book', ticker: slug, token: downToken, ob: venue.bookBody(f.w, 'down', s) })
      }
      if (venue.complete(f.w, s)) followed.delete(slug)
    }

    if (sink.buffered() > WRITE_AHEAD_BYTES) await sink.drainTo(WRITE_AHEAD_BYTES / 2)
    if ((s - start) % 3_600_000 === 0) opts.onProgress?.(s, start, end)
  }
}
