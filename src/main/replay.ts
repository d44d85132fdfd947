// `contest-signals replay` (decisions §12): the engine's own steps run on a tape, on a virtual clock
// that jumps from record to record. The engine ticks at every whole minute (its readings) and at every
// recorded change it acts on (a market opening, a strike set late, a close moved, a result, the
// exchange's status); between those instants nothing it could see has changed.
import path from 'node:path'
import { MINUTE_MS } from '../domain/contest.ts'
import type { ReadingModel } from '../domain/reading-model.ts'
import { venueOfSeries } from '../domain/venues.ts'
import { createEngine, DEFAULT_LEASE_TTL_MS, DEFAULT_TICK_MS } from '../engine/engine.ts'
import type { SkipReason } from '../engine/reading.ts'
import { createReplayClock } from '../feeds/tape/replay-clock.ts'
import { withRecordedIndex } from '../feeds/tape/tape-index-feed.ts'
import { createTapePlayer, type TapePlayer } from '../feeds/tape/tape-player.ts'
import { createTapeSpotFeed } from '../feeds/tape/tape-spot-feed.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { createMemoryEventNotifier } from '../store/memory/memory-event-notifier.ts'
import type { TapeHeader, TapeRecord } from '../tape/tape-format.ts'
import { MINUTE_GRAIN } from '../tape/tape-format.ts'
import { placeOf, TapeError } from '../tape/tape-reader.ts'
import { openTapeSet } from '../tape/tape-set.ts'
import {
  type ReplayIdentity,
  type ReplayStanding,
  readStanding,
  sameReplay,
  writeStanding,
} from './replay-standing.ts'
import { spotKeepMinutes } from './spot-history.ts'
import { REAL_VENUE_NAMES, tapeVenueOf, venueKind } from './venue-kinds.ts'

/** A replay that must not start: one line for the operator, non-zero exit. */
export class ReplayRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ReplayRefused'
  }
}

/** A replay the command line asked for wrongly (a usage error, exit 2): one line, nothing written. */
export class ReplayUsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ReplayUsageError'
  }
}

export type ReplayOptions = {
  /** a tape file, or a directory of them (replayed one after the other, in name order) */
  tapePath: string
  /** only these series of the tape (default: every series its header names) */
  series?: readonly string[]
  /** Unix ms: records before it only warm up the state; the engine starts here */
  from?: number
  /** Unix ms: the engine stops here */
  to?: number
  /**
   * The store, or how to make it where none is yet (a new SQLite file): made only once the replay is
   * about to write, so a replay that writes nothing (a period without records, a stop or a bad line
   * in the look-back) leaves no store behind. A store not made yet holds no run to go on from.
   */
  store: Store | (() => Promise<Store>)
  logger: Logger
  spotMaxAgeMs: number
  /** the pricing model the replayed engine raises signals with */
  model: ReadingModel
  /** READING_MAX_LATE_S in ms, as live */
  readingMaxLateMs: number
  /** the real clock: wall time taken, and the engine's lease */
  wallClock: Clock
  /** after each engine tick, with the virtual time reached */
  onProgress?: (progress: ReplayProgress) => void
  onNotice?: (message: string) => void
  /**
   * Stops the replay at the next clean point (after the engine step running, or in the look-back,
   * before anything is written): the store then says where it stopped, and the same replay run again
   * goes on from there. Its reason (e.g. the signal's name) is the summary's `interrupted.reason`.
   */
  signal?: AbortSignal
  /** the command line that runs this replay, kept in the store to name it if another replay is refused */
  command?: string
}

export type ReplayProgress = {
  /** virtual ms reached */
  at: number
  /** the span being replayed, for a percentage */
  from: number
  to: number
  opened: number
  signals: number
}

/**
 * What a tape built from one-minute history (header `"grain": "1m"`, decisions §15) can and cannot
 * give a reading, said once when such a tape is replayed: the rules of decisions §11 run unchanged,
 * but the grain decides some of them (docs/design-decisions.md §12, "Minute-grained tapes").
 */
export const MINUTE_GRAIN_NOTICE =
  'a minute-grained tape: each reading sees every source’s close of the minute ending at its boundary ' +
  'and the venue’s quote standing at the boundary (0 s late, so the lateness limit never binds); a spot ' +
  'needs min(2, the sources the header names) fresh sources; the settlement is the venue’s own result ' +
  '(Kalshi’s expiration value, Polymarket’s resolved outcome and final price)'

export type ReplaySummary = {
  series: readonly string[]
  /** the tape's grain (`1m`), null for a tape recorded at full grain */
  grain: typeof MINUTE_GRAIN | null
  opened: number
  settled: number
  voided: number
  signals: number
  skipped: Record<string, number>
  /** virtual span replayed */
  from: number
  reached: number
  wallMs: number
  /** set when the tape went bad part-way: what was wrong, and where the replay stopped */
  stopped: {
    file: string | null
    line: number | null
    problem: string
    /**
     * set when the bad line came in the look-back before the replay's start (the records that only
     * build state): the start it never reached, and `t` of the last good record (null: none)
     */
    lookBack: { start: number; lastGoodAt: number | null } | null
  } | null
  /**
   * set when `signal` stopped the replay: its reason, and `lookBack` when it stopped before the
   * replay's start (nothing written by this run), with that start
   */
  interrupted: { reason: string; lookBack: { start: number } | null } | null
  /** the instant this run went on from, when it continued a replay the store held stopped there */
  continuedFrom: number | null
  /**
   * true when the run it continued was killed (it never said it stopped): `continuedFrom` is then
   * the last instant that run recorded, and the steps it took after it are taken again
   */
  continuedAfterKill: boolean
}

type Counts = Pick<ReplaySummary, 'opened' | 'settled' | 'voided' | 'signals'>

/**
 * The store as the engine writes it, counting what each write actually changed; `store` is asked at
 * each use, as the engine exists before the store is made (it uses it only once it is).
 */
function countingStore(store: () => Store, counts: Counts): Store {
  return new Proxy({} as Store, {
    get(_, prop) {
      const target = store()
      const value = Reflect.get(target, prop, target)
      if (typeof value !== 'function') return value
      if (prop === 'openContest' || prop === 'addSignal' || prop === 'settleContest') {
        return async (...args: unknown[]) => {
          const event = await value.apply(target, args)
          if (event !== null) {
            if (prop === 'openContest') counts.opened++
            else if (prop === 'addSignal') counts.signals++
            else {
              counts.settled++
              if ((args[1] as { kind: string }).kind === 'void') counts.voided++
            }
          }
          return event
        }
      }
      return value.bind(target)
    },
  })
}

/** The tape's venue kind and the series to replay, or why this tape cannot be replayed at all. */
function replayable(header: TapeHeader, only: readonly string[] | undefined) {
  const kind = venueKind(header.venue)
  const named = header.venue.split(',').map((v) => v.trim())
  // a list of known venues, as VENUE takes them (decisions §14): not an unknown venue, one per tape
  if (!kind && named.length > 1 && named.every((v) => venueKind(v) !== null))
    throw new TapeError(
      1,
      `a tape holds one venue's records, and "${header.venue}" names ${named.length}: write one tape per venue and replay each into the same store`,
    )
  if (!kind)
    throw new TapeError(
      1,
      `unknown venue "${header.venue}" (this version replays: ${REAL_VENUE_NAMES.join(', ')})`,
    )
  // a series prefix names its venue (decisions §14): another venue's series on this tape would be
  // read by the wrong adapter, which finds no market of it and replays nothing
  for (const s of header.series) {
    const owner = venueOfSeries(s)
    if (owner !== null && owner !== header.venue)
      throw new TapeError(
        1,
        `series ${s} is a ${owner} series, and the header says venue "${header.venue}": a tape holds one venue's series`,
      )
  }
  const series = only ?? header.series
  for (const s of series)
    if (!header.series.includes(s))
      throw new ReplayRefused(`series ${s} is not on this tape (it has ${header.series.join(', ')})`)
  return { kind, series }
}

const iso = (ms: number): string => new Date(ms).toISOString()

/**
 * How much tape time a running replay covers between records of where it stands: a killed run is
 * continued from its last record, and takes the steps after it again (idempotent, so nothing changes
 * but the time). A contest's span: at most 15 minutes of tape again, one small write per contest.
 */
const CHECKPOINT_SPAN_MS = 15 * MINUTE_MS

/**
 * A header's own period must run forward: a `from` after its `to` is a bad header, refused at line 1
 * of the file that holds it, as any other bad header.
 */
function checkHeaderPeriods(headers: readonly TapeHeader[], files: readonly string[]): void {
  for (const [i, h] of headers.entries())
    if (Date.parse(h.from) > Date.parse(h.to))
      throw new TapeError(1, `header "from" ${h.from} is after its "to" ${h.to}`, files[i] as string)
}

/** `t` of the tape's first record, null when it holds none (a bad first line: null, the run says it). */
async function firstRecordAt(tapePath: string): Promise<number | null> {
  const tape = await openTapeSet(tapePath)
  const batches = tape.batches()
  try {
    const first = await batches.next()
    return first.done ? null : ((first.value[0] as TapeRecord | undefined)?.t ?? null)
  } catch (err) {
    if (err instanceof TapeError) return null
    throw err
  } finally {
    await batches.return()
    tape.close()
  }
}

/**
 * The replay's span and why it cannot run, shared by the check before any store and the run itself:
 * a `--to` not after the start is a usage error; a period past the tape's end holds no records.
 */
function checkSpan(
  header: TapeHeader,
  first: number | null,
  opts: { from?: number | undefined; to?: number | undefined },
): { from: number; to: number; start: number } {
  const from = opts.from ?? Date.parse(header.from)
  const to = opts.to ?? Date.parse(header.to)
  const start = Math.max(from, first ?? from)
  if (opts.to !== undefined && opts.to <= start) {
    const what =
      opts.from !== undefined && start === opts.from
        ? '--from'
        : first !== null && start === first && start > Date.parse(header.from)
          ? "the tape's first record"
          : "the tape's start"
    throw new ReplayUsageError(
      `--to ${iso(opts.to)} is not after the replay's start ${iso(start)} (${what}): nothing would be replayed`,
    )
  }
  if (first === null) throw new ReplayRefused('the tape holds no records (a header alone): nothing to replay')
  if (start >= to)
    throw new ReplayRefused(
      opts.from !== undefined && from >= to
        ? `the chosen period holds no records: --from ${iso(from)} is not before the tape's end ${iso(to)}; nothing was replayed`
        : `the chosen period holds no records: the tape's first record (${iso(start)}) is not before its end ${iso(to)}; nothing was replayed`,
    )
  return { from, to, start }
}

/**
 * Reads the tape's headers (and its first record) and throws what runReplay would refuse it for (a
 * missing or bad tape, a series not on it, a --to not after the start, a period past the tape's end)
 * before any store exists: a command checks this first and creates no store for a replay that cannot run.
 */
export async function checkReplayable(
  tapePath: string,
  series?: readonly string[],
  period: { from?: number | undefined; to?: number | undefined } = {},
): Promise<void> {
  const tape = await openTapeSet(tapePath)
  try {
    checkHeaderPeriods(tape.headers, tape.files)
    replayable(tape.header, series)
  } finally {
    tape.close()
  }
  checkSpan(tape.header, await firstRecordAt(tapePath), period)
}

/**
 * Where this replay may write: from its start into a store without its series, or on from the
 * instant a stopped run of this same replay reached, or the last instant a killed one recorded
 * (replay-standing.ts). Any other store holding contests of the series is refused, as it may hold
 * another history of them.
 */
async function continuationPoint(
  store: Store,
  series: readonly string[],
  identity: ReplayIdentity,
): Promise<{ at: number | null; afterKill: boolean; previous: ReplayStanding | null }> {
  let at: number | null = null
  let afterKill = false
  let previous: ReplayStanding | null = null
  for (const s of series) {
    if ((await store.countContests(s)) === 0) continue
    const standing = await readStanding(store, s)
    const refuse = (why: string): never => {
      throw new ReplayRefused(
        `the store already holds contests of ${s}${why}: replay into a store without that series (a new DATABASE_URL)`,
      )
    }
    if (standing === null || standing.state === 'done') refuse('')
    else if (!sameReplay(standing.identity, identity))
      throw new ReplayRefused(
        `the store holds a replay of ${s} ${standing.state === 'running' ? 'that last recorded' : 'stopped at'} ${iso(standing.reached)} from another tape or with other options: go on with ${standing.command ?? 'the command that started it'}, or replay into a store without that series (a new DATABASE_URL)`,
      )
    else if (at !== null && at !== standing.reached) refuse(' from replays stopped at different instants')
    else {
      at = standing.reached
      // running: killed (or running now, which the engine's lease then refuses)
      afterKill ||= standing.state === 'running'
      previous = standing
    }
  }
  return { at, afterKill, previous }
}

/** Records up to `to` and none after: nothing the replay writes can come from after its end. */
async function* upTo(
  batches: AsyncGenerator<TapeRecord[], void, undefined>,
  to: number,
  onFirst: (t: number) => void,
): AsyncGenerator<TapeRecord[], void, undefined> {
  let first = true
  for await (const batch of batches) {
    if (first) onFirst((batch[0] as TapeRecord).t)
    first = false
    if ((batch.at(-1) as TapeRecord).t <= to) {
      yield batch
      continue
    }
    // `t` never decreases: the records up to `to` are a prefix
    const kept = batch.filter((r) => r.t <= to)
    if (kept.length > 0) yield kept
    return
  }
}

export async function runReplay(opts: ReplayOptions): Promise<ReplaySummary> {
  const { logger, wallClock } = opts
  // null until made (opts.store a maker): nothing reads or writes it before the replay writes
  let store: Store | null = typeof opts.store === 'function' ? null : opts.store
  const made = (): Store => {
    if (store === null) throw new Error('the replay wrote before its store was made')
    return store
  }
  const startedWall = wallClock.now()
  const tape = await openTapeSet(opts.tapePath, opts.onNotice ? { onNotice: opts.onNotice } : {})
  try {
    const { header } = tape
    checkHeaderPeriods(tape.headers, tape.files)
    const { kind, series } = replayable(header, opts.series)
    const identity: ReplayIdentity = {
      files: tape.files.map((f) => path.basename(f)),
      venue: header.venue,
      tapeSeries: header.series,
      tapeFrom: header.from,
      tapeTo: header.to,
      origin: header.origin,
      grain: header.grain ?? null,
      series: [...series],
      from: opts.from ?? null,
      to: opts.to ?? null,
      model: opts.model.version,
    }
    const continuation =
      store === null
        ? { at: null, afterKill: false, previous: null }
        : await continuationPoint(store, series, identity)
    const continuedFrom = continuation.at
    const standing = (state: 'running' | 'stopped' | 'done', reached: number) =>
      writeStanding(made(), series, { identity, state, reached, command: opts.command ?? null })

    if (header.grain === MINUTE_GRAIN) opts.onNotice?.(MINUTE_GRAIN_NOTICE)
    const clock = createReplayClock(Number.NEGATIVE_INFINITY)
    const venueOptions = { series, clock, logger, player: () => player, placeOf }
    const venue = tapeVenueOf(kind, venueOptions)
    const proxy = createTapeSpotFeed({
      sources: header.sources,
      maxAgeMs: opts.spotMaxAgeMs,
      clock,
      logger,
      keepMinutes: spotKeepMinutes(opts.model),
    })
    // a keyed recording's BRTI prints are the spot while fresh, as they were live
    const feed = withRecordedIndex(proxy, { maxAgeMs: opts.spotMaxAgeMs, clock })
    const sink = (record: TapeRecord): boolean => {
      switch (record.k) {
        case 'spot':
        case 'closes':
          proxy.take(record)
          return false
        case 'index':
          feed.takeIndex(record)
          return false
        case 'market':
        case 'exchange':
          return venue.take(record)
        default:
          return false
      }
    }
    // the tape ends at `to` for the replay: a book after it answers no request made before it
    const to = opts.to ?? Date.parse(header.to)
    // `t` of the tape's first record, after `to` or not
    let firstAt: number | null = null
    const records = upTo(tape.batches(), to, (t) => {
      firstAt = t
    })
    const player: TapePlayer = createTapePlayer(records[Symbol.asyncIterator](), sink)
    const counts: Counts = { opened: 0, settled: 0, voided: 0, signals: 0 }
    const skipped: Record<string, number> = {}
    const notifier = createMemoryEventNotifier()
    const engine = createEngine({
      store: countingStore(made, counts),
      venue,
      feed,
      notifier,
      series,
      clock,
      wallClock,
      backfillDays: 0,
      retentionMs: Number.MAX_SAFE_INTEGER,
      holderId: `replay:${process.pid}`,
      logger,
      model: opts.model,
      readingMaxLateMs: opts.readingMaxLateMs,
      onSkippedReading: (reason: SkipReason) => {
        skipped[reason] = (skipped[reason] ?? 0) + 1
      },
    })

    let from = opts.from ?? Date.parse(header.from)
    const summary = (
      stopped: ReplaySummary['stopped'],
      interrupted: ReplaySummary['interrupted'] = null,
    ): ReplaySummary => ({
      series,
      grain: header.grain ?? null,
      ...counts,
      skipped,
      from,
      reached: Math.max(from, clock.now()),
      wallMs: wallClock.now() - startedWall,
      stopped,
      interrupted,
      continuedFrom,
      continuedAfterKill: continuation.afterKill,
    })
    const stopRequested = (): boolean => opts.signal?.aborted === true
    const reason = (): string => String(opts.signal?.reason ?? 'a stop')

    // the replay's start while the records before it are played, null once it is reached: a fault
    // met before then is no stop "at" any instant of the replay (nothing was replayed)
    let inLookBack: number | null = from
    // set once this run may have written: a stop then leaves the store saying where
    let writing = false
    try {
      // records before the start only build the state (spot history for the model, markets listed)
      await player.nextTime()
      const span = checkSpan(header, firstAt, opts)
      // a continued replay builds the state up to the instant its stopped run reached, and goes on there
      const start = continuedFrom ?? span.start
      if (continuedFrom !== null) from = continuedFrom
      inLookBack = start
      while ((await player.playUntil(start)) < start)
        if (stopRequested()) return summary(null, { reason: reason(), lookBack: { start } })
      if (stopRequested()) return summary(null, { reason: reason(), lookBack: { start } })
      // records before --from and none from it on (a --from after the tape's last record)
      if (continuedFrom === null && player.lastApplied() < span.from && (await player.nextTime()) === null)
        throw new ReplayRefused(
          `the chosen period from ${iso(span.from)} to ${iso(to)} holds no records (the last before it is at ${iso(player.lastApplied())}): nothing was replayed`,
        )
      inLookBack = null
      if (typeof opts.store === 'function') store = await opts.store()
      writing = true
      await standing('running', start)
      clock.advanceTo(start)
      await engine.tick()
      if (!engine.isLeader()) {
        // a tick without the lease writes nothing: the store stands as it stood before this run
        const { previous } = continuation
        await (previous === null ? standing('done', start) : writeStanding(made(), series, previous))
        throw new ReplayRefused(
          `another engine holds this store’s lease: stop it before replaying into this store${continuation.afterKill ? ` (a replay killed less than ${DEFAULT_LEASE_TTL_MS / 1000} s ago still holds it: run this again then)` : ''}`,
        )
      }
      // a killed run leaves its last checkpoint behind: every step up to it is in the store
      let checkpointAt = start
      while (clock.now() < to && !stopRequested() && (await player.nextTime()) !== null) {
        // the next whole minute of the clock and of every known window (which need not sit on the clock's)
        const wholeMinute = Math.floor(clock.now() / MINUTE_MS) * MINUTE_MS + MINUTE_MS
        const boundary = Math.min(wholeMinute, venue.nextBoundaryAfter(clock.now()))
        // a minute still waiting for a book or a spot is tried again a tick later, as live
        const next = engine.retryDue() ? Math.min(boundary, clock.now() + DEFAULT_TICK_MS) : boundary
        clock.advanceTo(await player.playUntil(Math.min(next, to)))
        await engine.tick()
        if (clock.now() - checkpointAt >= CHECKPOINT_SPAN_MS) {
          checkpointAt = clock.now()
          // the engine's measured state first: a run going on from this checkpoint reads as this one
          await engine.keepState()
          await standing('running', checkpointAt)
        }
        opts.onProgress?.({ at: clock.now(), from, to, opened: counts.opened, signals: counts.signals })
      }
      engine.flushSkipped()
      // every engine step up to the instant reached is in the store, none after it
      if (stopRequested() && clock.now() < to) {
        await standing('stopped', clock.now())
        return summary(null, { reason: reason(), lookBack: null })
      }
      await standing('done', clock.now())
      return summary(null)
    } catch (err) {
      if (err instanceof TapeError) {
        engine.flushSkipped()
        const lastGoodAt = player.lastApplied()
        const lookBack =
          inLookBack === null
            ? null
            : { start: inLookBack, lastGoodAt: Number.isFinite(lastGoodAt) ? lastGoodAt : null }
        // stopped between engine steps: a mended tape goes on from here
        if (writing) await standing('stopped', clock.now())
        return summary({ file: err.file, line: err.line, problem: err.problem, lookBack })
      }
      throw err
    } finally {
      await engine.stop()
      await notifier.close()
    }
  } finally {
    tape.close()
  }
}
