// The fit's data from tapes (decisions §12, §15), recorded live or imported: the replay's own venue,
// spot feed and player on a virtual clock, and at each whole minute of every window the engine's own
// reading step (observeReadingInputs) — what a replay's engine would have read, no more. A contest's
// readings are handed over once its result is on the tape, with the basis its settlement showed: the
// proxy's mean over the settlement minute (from its closes, as every feed has them) minus the
// settlement price.
import { MINUTE_MS } from '../../src/domain/contest.ts'
import type { MinuteClose } from '../../src/domain/price-history.ts'
import { spanMeanOfCloses } from '../../src/domain/price-history.ts'
import { liveContestFor } from '../../src/engine/contest-steps.ts'
import { DEFAULT_READING_MAX_LATE_MS, observeReadingInputs } from '../../src/engine/reading.ts'
import { createReplayClock } from '../../src/feeds/tape/replay-clock.ts'
import { withRecordedIndex } from '../../src/feeds/tape/tape-index-feed.ts'
import { createTapePlayer, type TapePlayer } from '../../src/feeds/tape/tape-player.ts'
import { createTapeSpotFeed } from '../../src/feeds/tape/tape-spot-feed.ts'
import { spotKeepMinutes } from '../../src/main/spot-history.ts'
import { tapeVenueOf, venueKind } from '../../src/main/venue-kinds.ts'
import type { Logger } from '../../src/ports/logger.ts'
import type { TapeHeader, TapeRecord } from '../../src/tape/tape-format.ts'
import { TapeError } from '../../src/tape/tape-reader.ts'
import { openTapeSet } from '../../src/tape/tape-set.ts'
import { measuredCrowdLags } from '../measured-crowd-lags.ts'
import { type FitReading, type FitSource, observerModel } from './fit-source.ts'

/** SPOT_MAX_AGE_S's default: the spot's freshness as the replay judges it. */
const SPOT_MAX_AGE_MS = 10_000
/** How long after `until` the tape is read for the results of contests that closed by then. */
const SETTLEMENT_WAIT_MS = 60 * MINUTE_MS
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }

export type TapeSpan = { since?: number; until?: number }

/** The tapes of `target` (a file or a directory of day files) as the fit's data. */
export async function tapeFitSource(target: string, span: TapeSpan = {}): Promise<FitSource> {
  const set = await openTapeSet(target)
  set.close()
  const { header, files } = set
  const from = span.since ?? Date.parse(header.from)
  const until = span.until ?? Date.parse(header.to)
  if (!(until > from))
    throw new Error(
      `--until ${new Date(until).toISOString()} is not after the tapes' start ${new Date(from).toISOString()}`,
    )
  let firstClose = from
  return {
    from,
    until,
    get closesFrom() {
      return firstClose
    },
    training: (readings, contests) => ({
      source: 'tapes',
      tapes: files.map((f) => f.split(/[\\/]/).at(-1) as string),
      origin: header.origin,
      from: new Date(from).toISOString(),
      until: new Date(until).toISOString(),
      contests,
      readings,
    }),
    async closeRuns() {
      const { closes, first } = await tapeCloses(target, header, until)
      firstClose = first
      return [closes]
    },
    forEachReading: (each) => tapeReadings(target, header, from, until, each),
  }
}

/** Every close the tapes' sources make up to `until`, merged across sources as the replay's feed merges them. */
async function tapeCloses(
  target: string,
  header: TapeHeader,
  until: number,
): Promise<{ closes: MinuteClose[]; first: number }> {
  const set = await openTapeSet(target)
  const clock = createReplayClock(Number.NEGATIVE_INFINITY)
  const first = Date.parse(header.from) - observerModel.historyMinutes * MINUTE_MS
  const minutes = Math.ceil((until - first) / MINUTE_MS) + 2
  const feed = createTapeSpotFeed({
    sources: header.sources,
    maxAgeMs: SPOT_MAX_AGE_MS,
    clock,
    logger: quiet,
    keepMinutes: minutes,
  })
  let earliest = Number.POSITIVE_INFINITY
  try {
    for await (const batch of set.batches())
      for (const r of batch) {
        if (r.t > until) break
        if (r.k === 'spot' || r.k === 'closes') {
          earliest = Math.min(earliest, r.t)
          feed.take(r)
        }
      }
  } finally {
    set.close()
  }
  const closes = await feed.stampedClosesBefore(until, minutes)
  return { closes, first: Math.max(first, Math.floor(earliest / MINUTE_MS) * MINUTE_MS) }
}

/** The readings of contests expiring in [from, until], each contest's handed over once it settles. */
async function tapeReadings(
  target: string,
  header: TapeHeader,
  from: number,
  until: number,
  each: (r: FitReading) => void,
): Promise<void> {
  const set = await openTapeSet(target)
  try {
    const clock = createReplayClock(Number.NEGATIVE_INFINITY)
    const venueOptions = { series: header.series, clock, logger: quiet, player: () => player }
    const kind = venueKind(header.venue)
    if (!kind) throw new TapeError(1, `unknown venue "${header.venue}"`, set.files[0] ?? null)
    const venue = tapeVenueOf(kind, venueOptions)
    const proxy = createTapeSpotFeed({
      sources: header.sources,
      maxAgeMs: SPOT_MAX_AGE_MS,
      clock,
      logger: quiet,
      keepMinutes: spotKeepMinutes(observerModel),
    })
    // as the replay does: a keyed recording's index prints are the spot
    const feed = withRecordedIndex(proxy, { maxAgeMs: SPOT_MAX_AGE_MS, clock })
    const sink = (record: TapeRecord): boolean => {
      if (record.k === 'spot' || record.k === 'closes') {
        proxy.take(record)
        return false
      }
      if (record.k === 'index') {
        feed.takeIndex(record)
        return false
      }
      if (record.k === 'market' || record.k === 'exchange') return venue.take(record)
      return false
    }
    const player: TapePlayer = createTapePlayer(set.batches()[Symbol.asyncIterator](), sink)
    const deps = {
      venue,
      feed,
      model: observerModel,
      maxLateMs: DEFAULT_READING_MAX_LATE_MS,
      basisCache: new Map(),
      crowdLags: measuredCrowdLags(),
    }
    const pending = new Map<
      string,
      Omit<FitReading, 'settledSide' | 'realisedBasis' | 'realisedBasisNoise' | 'settledPriceDollars'>[]
    >()
    const stop = until + SETTLEMENT_WAIT_MS
    let readAt = Number.NEGATIVE_INFINITY

    const settle = async (): Promise<void> => {
      for (const [ticker, readings] of pending) {
        const result = await venue.result(ticker, clock.now())
        if (!result) continue
        pending.delete(ticker)
        const expiresAt = readings[0]?.expiresAt as number
        const closes = await feed.stampedClosesBefore(expiresAt, 2)
        const mean = spanMeanOfCloses(closes, expiresAt - MINUTE_MS, expiresAt)
        const realised =
          result.kind === 'settled' && result.priceDollars !== null && mean !== null
            ? mean.dollars - result.priceDollars
            : null
        // from the two closes bounding the minute (spanMeanOfCloses found both): their mean's own
        // error; none from the minute's own mean
        const [first, last] = closes
        const minuteReturn =
          realised !== null && !mean?.fromMeans && first && last
            ? Math.log(last.priceDollars / first.priceDollars)
            : 0
        const settledSide = result.kind === 'settled' ? result.side : null
        for (const r of readings)
          each({
            ...r,
            settledSide,
            realisedBasis: r.minute === 14 ? realised : null,
            realisedBasisNoise: r.minute === 14 && realised !== null ? minuteReturn ** 2 / 12 : null,
            settledPriceDollars: r.minute === 14 && realised !== null ? result.priceDollars : null,
          })
      }
    }

    while ((await player.nextTime()) !== null && clock.now() < stop) {
      const now = clock.now()
      const wholeMinute = Number.isFinite(now)
        ? Math.floor(now / MINUTE_MS) * MINUTE_MS + MINUTE_MS
        : ((await player.nextTime()) as number)
      const target = Math.min(wholeMinute, venue.nextBoundaryAfter(now), stop)
      clock.advanceTo(await player.playUntil(target))
      const at = clock.now()
      if (at > readAt && at >= from && at <= until) {
        readAt = at
        for (const series of header.series) {
          const market = await venue.marketAt(series, at)
          if (!market || market.opensAt < from || market.expiresAt > until) continue
          const minute = (at - market.opensAt) / MINUTE_MS
          if (!Number.isInteger(minute) || minute < 1 || minute > 14) continue
          const observed = await observeReadingInputs(deps, liveContestFor(market), minute, at)
          if ('skipped' in observed) continue
          const list = pending.get(market.ticker) ?? []
          list.push({ ticker: market.ticker, minute, expiresAt: market.expiresAt, inputs: observed.model })
          pending.set(market.ticker, list)
        }
      }
      await settle()
    }
  } finally {
    set.close()
  }
}
