// `contest-signals sim tape` (decisions §12): the honest sandbox written as a tape in Kalshi's own
// shapes, second by second — each exchange's messages as a client receives them, every change of
// each market's body, a book every 2 s of each live contest, every change of the exchange status —
// so that a replay of the tape gives the same contests and signals as the sandbox itself. It reads
// the sandbox only through the surface it presents the venue with (sim-world.ts: the Market,
// orderbook_fp and exchange-status bodies, and the exchanges' observations), never its internals.
import { QUARTER_MS } from '../../domain/ticker.ts'
import type { TapeHeader } from '../../tape/tape-format.ts'
import { type TapeWriter, WRITE_AHEAD_BYTES } from '../../tape/tape-writer.ts'
import type { SimContest, SimWorld } from '../sim/sim-world.ts'

const SECOND_MS = 1_000
const DAY_MS = 86_400_000
/** Written after the last contest closes, for its result. */
export const SIM_TAPE_TAIL_MS = 5 * 60_000
/** A book every this often during each live contest, on the contest's own grid (every minute boundary has one). */
export const SIM_TAPE_BOOK_EVERY_MS = 2_000

/** The part of a tape writer a sandbox tape needs: its drainTo is awaited when it falls behind, so a day of tape is never held in memory. */
export type SimTapeSink = Pick<TapeWriter, 'write' | 'buffered' | 'drainTo'>

export type SimTapeOptions = {
  world: SimWorld
  series: readonly string[]
  /** first contest window opens here (a quarter hour) */
  from: number
  days: number
  /**
   * The sandbox written before the first contest opens (spot, and the markets of the contests opening
   * in it, without their books): what a reading at the first contest looks back at, so the replay's
   * first readings see what the sandbox's own history saw (the caller derives it from the models).
   */
  warmupMs: number
  origin: string
  onProgress?: (at: number, from: number, to: number) => void
}

export function simTapeHeader(
  opts: Pick<SimTapeOptions, 'world' | 'series' | 'from' | 'days' | 'origin'>,
): TapeHeader {
  return {
    tape: 1,
    venue: 'kalshi',
    series: [...opts.series],
    sources: [...opts.world.sources.names],
    from: new Date(opts.from).toISOString(),
    to: new Date(opts.from + opts.days * DAY_MS + SIM_TAPE_TAIL_MS).toISOString(),
    origin: opts.origin,
  }
}

type Followed = { contest: SimContest; lastBody: string }

/** Writes the records of the tape (the header is the writer's) into `sink`. */
export async function writeSimTape(opts: SimTapeOptions, sink: SimTapeSink): Promise<void> {
  const { world } = opts
  const names = world.sources.names
  const start = opts.from - opts.warmupMs
  const lastOpen = opts.from + opts.days * DAY_MS
  const end = lastOpen + SIM_TAPE_TAIL_MS
  const followed = new Map<string, Followed>()
  const lastMessage = names.map(() => Number.NEGATIVE_INFINITY)
  let lastStatus = ''

  for (let s = start; s <= end; s += SECOND_MS) {
    writeSpotMessages(world, s, lastMessage, sink)

    const status = world.exchangeStatusBody(s)
    const statusText = JSON.stringify(status)
    if (statusText !== lastStatus) {
      lastStatus = statusText
      sink.write({ t: s, k: 'exchange', status })
    }

    // the current window and the next (listed a quarter ahead, as the venue lists them); during the
    // warm-up too, so the strikes of the contests before the first are on the tape (the basis samples)
    if (s >= start - QUARTER_MS && s < lastOpen) {
      const current = Math.floor(s / QUARTER_MS) * QUARTER_MS
      for (const series of opts.series)
        for (const expiresAt of [current + QUARTER_MS, current + 2 * QUARTER_MS]) {
          const contest = world.contest(series, expiresAt)
          if (contest.opensAt >= start && contest.opensAt < lastOpen && !followed.has(contest.ticker))
            followed.set(contest.ticker, { contest, lastBody: '' })
        }
    }

    for (const [ticker, f] of followed) {
      const body = world.marketBody(f.contest, s)
      const text = JSON.stringify(body)
      if (text !== f.lastBody) {
        f.lastBody = text
        sink.write({ t: s, k: 'market', m: body })
      }
      const { opensAt, expiresAt } = f.contest
      // books only from the first contest on: nothing reads one during the warm-up
      if (
        opensAt >= opts.from &&
        s >= opensAt &&
        s < expiresAt &&
        (s - opensAt) % SIM_TAPE_BOOK_EVERY_MS === 0
      )
        sink.write({ t: s, k: 'book', ticker, ob: world.orderbookBody(f.contest, s) })
      if (body.status === 'finalized') followed.delete(ticker)
    }

    if (sink.buffered() > WRITE_AHEAD_BYTES) await sink.drainTo(WRITE_AHEAD_BYTES / 2)
    if ((s - start) % 3_600_000 === 0) opts.onProgress?.(s, start, end)
  }
}

/**
 * Each exchange message of second `s` once, at the instant a client receives it; `lastMessage` holds
 * each source's last written instant (one slot per source, updated here). Both venues' tapes.
 */
export function writeSpotMessages(
  world: SimWorld,
  s: number,
  lastMessage: number[],
  sink: SimTapeSink,
): void {
  for (const [i, src] of world.sources.names.entries()) {
    const seen = world.sources.observe(i, s)
    if (!seen || seen.observedAt <= (lastMessage[i] as number)) continue
    lastMessage[i] = seen.observedAt
    sink.write({ t: seen.observedAt, k: 'spot', src, bid: seen.bid, ask: seen.ask })
  }
}
