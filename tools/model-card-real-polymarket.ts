// `npm run model:card:real:polymarket [-- DIR]`: the model's own evidence on a real week of Polymarket
// btc-updown-15m windows (docs/model.md, "On real Polymarket windows"), computed at run time from the
// recorded research files in DIR (default ../shared/real-data; no licence: nothing of them is
// committed, only the figures measured here). The files hold each window's outcome and Binance's
// one-minute klines, but no book, no price to beat and no final price: the engine itself would raise
// no reading there (no quote), so what is judged is what `evaluate` calls the model alone — v2 as
// shipped and v1, each reading built as the engine's reading step builds one for a market whose
// strike is unpublished (the proxy's own strike: its price at the open, the point-price rule these
// windows settled by), through the replay's own spot feed. No parameter was fitted on these
// windows. The same folder's top-of-book recordings of other days (a book, no spot) say how the
// venue's own crowd priced its windows: width, one-sided books and the mid's calibration. Writes the
// block between the model:card:real:polymarket markers of docs/model.md.

import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { BOOTSTRAP_DRAWS, MIN_BOOTSTRAP_DAYS, utcDayOf } from '../src/domain/bootstrap.ts'
import { CONTEST_MS, MINUTE_MS } from '../src/domain/contest.ts'
import { MINUTES_LEFT_BUCKETS } from '../src/domain/evaluation.ts'
import { MODEL_VERSION as V1_NAME } from '../src/domain/model.ts'
import { type DatedPoint, pairedDifferences } from '../src/domain/paired-comparison.ts'
import { spanMeanOfCloses } from '../src/domain/price-history.ts'
import type { ModelInputs } from '../src/domain/reading-model.ts'
import { scoresOf } from '../src/domain/scores.ts'
import { type TailRow, tailRatioText, tailTable } from '../src/domain/tail-table.ts'
import { readingLookbackMs, STRIKE_ESTIMATE_SD } from '../src/engine/reading.ts'
import { createSeededRandom } from '../src/feeds/sim/seeded-random.ts'
import { createReplayClock } from '../src/feeds/tape/replay-clock.ts'
import { createTapeSpotFeed } from '../src/feeds/tape/tape-spot-feed.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'
import type { Logger } from '../src/ports/logger.ts'
import { minuteCloseRecord } from '../src/tape/minute-grain.ts'
import { f, pm } from './card-text.ts'
import { replaceBlock } from './model-params-table.ts'
import { HistoryInputError } from './real-data/kalshi-minute-history.ts'
import { type BookWindow, polymarketBookWindows } from './real-data/polymarket-book.ts'
import { crowdLines } from './real-data/polymarket-crowd.ts'
import {
  binanceMinutes,
  type PolymarketWindow,
  type ProxyMinute,
  polymarketWindows,
} from './real-data/polymarket-week.ts'
import { DEFAULT_REAL_DATA, filesOf, readAll } from './real-data-tapes.ts'
import { parseToolArgs } from './tool-args.ts'

const { values, positionals } = parseToolArgs(
  'model:card:real:polymarket',
  "the model's own evidence on a real week of Polymarket windows from ../shared/real-data (or the folder given first) (docs/model.md)",
  {
    allowPositionals: true,
    options: {
      card: { type: 'string', default: path.join(import.meta.dirname, '..', 'docs', 'model.md') },
    },
  },
)
const SOURCE = 'binance'
/** SPOT_MAX_AGE_S's default: a minute's close is 1 ms old at the next boundary, a missing minute stale. */
const SPOT_MAX_AGE_MS = 10_000
/** the seed of the day-block bootstrap's draws: the card is then the same on every run */
const BOOTSTRAP_SEED = 15
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }
const log = (msg: string) => process.stderr.write(`model:card:real:polymarket: ${msg}\n`)
const iso = (ms: number) => new Date(ms).toISOString()

type Week = { windows: PolymarketWindow[]; minutes: ProxyMinute[]; books: BookWindow[] }

async function readWeek(dir: string): Promise<Week> {
  const byStart =
    <T>(at: (x: T) => number) =>
    (a: T, b: T) =>
      at(a) - at(b)
  const windows = await readAll(
    await filesOf(dir, 'polymarket', 'polymarket_btc_updown_15m_outcomes_'),
    polymarketWindows,
  )
  const minutes = await readAll(await filesOf(dir, 'spot', 'binance_btcusdt_1m_', '.csv.gz'), binanceMinutes)
  const books = await readAll(
    await filesOf(dir, 'polymarket', 'polymarket_btc15m_book_1s_', '.csv.gz'),
    polymarketBookWindows,
  )
  windows.sort(byStart((w) => w.opensAt))
  minutes.sort(byStart((m) => m.minuteStart))
  books.sort(byStart((w) => w.opensAt))
  return { windows, minutes, books }
}

const FORECASTERS = [
  { key: 'v2', label: 'v2 as shipped, the model alone', model: createReadingModel(DEFAULT_MODEL) },
  { key: 'v1', label: 'v1', model: createReadingModel(V1_NAME) },
] as const
type Key = (typeof FORECASTERS)[number]['key'] | 'even'
type Point = DatedPoint & { minutesLeft: number }

/**
 * Every reading of every resolved window: minutes 1–14, at each boundary, the spot and closes as the
 * replay's feed gives them and the strike as the engine estimates an unpublished one. A reading is
 * scored only where every forecaster priced it, so all are judged on the same readings.
 */
async function score(week: Week) {
  const lookback = Math.max(...FORECASTERS.map(({ model }) => readingLookbackMs(model)))
  const clock = createReplayClock(Number.NEGATIVE_INFINITY)
  const feed = createTapeSpotFeed({
    sources: [SOURCE],
    maxAgeMs: SPOT_MAX_AGE_MS,
    clock,
    logger: quiet,
    keepMinutes: Math.ceil(lookback / MINUTE_MS) + 2,
  })
  const points = new Map<Key, Point[]>(FORECASTERS.map(({ key }) => [key, []]))
  points.set('even', [])
  const skipped = { 'no-strike': 0, 'no-spot': 0, 'short-history': 0 }
  let proxyDisagrees = 0
  let proxyJudged = 0
  let next = 0
  const playUntil = (t: number) => {
    for (; next < week.minutes.length; next++) {
      const m = week.minutes[next] as ProxyMinute
      const record = minuteCloseRecord(SOURCE, m.minuteStart, m.close)
      if (record.t > t) break
      clock.advanceTo(record.t)
      feed.take(record)
    }
    clock.advanceTo(t)
  }
  const resolved = week.windows.filter((w) => w.up !== null)
  for (const w of resolved) {
    const y = w.up ? 1 : 0
    const expiresAt = w.opensAt + CONTEST_MS
    for (let minute = 1; minute <= 14; minute++) {
      const at = w.opensAt + minute * MINUTE_MS
      playUntil(at)
      // a point price: the proxy's close at the open itself (the engine's estimateStrike, 0 s window)
      const strike = spanMeanOfCloses(await feed.stampedClosesBefore(w.opensAt, 1), w.opensAt, w.opensAt)
      if (strike === null) {
        skipped['no-strike']++
        continue
      }
      const spot = await feed.observeSpot(at)
      if (spot === null) {
        skipped['no-spot']++
        continue
      }
      const priced: [Key, number][] = []
      for (const { key, model } of FORECASTERS) {
        const closes = await feed.stampedClosesBefore(spot.observedAt, model.historyMinutes)
        if (closes.length < model.minHistoryCloses) break
        const inputs: ModelInputs = {
          spotDollars: spot.priceDollars,
          spotObservedAt: spot.observedAt,
          strikeDollars: strike.dollars,
          opensAt: w.opensAt,
          expiresAt,
          closes,
          basisSamples: [],
          midProbability: null,
          venue: 'polymarket',
          averagingS: 0,
          strikeEstimateVariance: STRIKE_ESTIMATE_SD * STRIKE_ESTIMATE_SD,
          ownStrikeDollars: strike.dollars,
        }
        const out = model.probabilityUp(inputs)
        priced.push([key, out.modelAloneUp ?? out.probabilityUp])
      }
      if (priced.length < FORECASTERS.length) {
        skipped['short-history']++
        continue
      }
      const base = { contest: w.slug, y, day: utcDayOf(w.opensAt), minutesLeft: 15 - minute }
      for (const [key, p] of priced) points.get(key)?.push({ ...base, p })
      points.get('even')?.push({ ...base, p: 0.5 })
    }
    // the proxy's own verdict: its close at the window's end against its close at the open
    playUntil(expiresAt)
    const ends = await feed.stampedClosesBefore(expiresAt, 16)
    const first = ends.find((c) => c.at === w.opensAt)
    const last = ends.find((c) => c.at === expiresAt)
    if (first && last) {
      proxyJudged++
      if (last.priceDollars >= first.priceDollars !== w.up) proxyDisagrees++
    }
  }
  return { points, skipped, resolved: resolved.length, proxyDisagrees, proxyJudged }
}

function cardLines(week: Week, s: Awaited<ReturnType<typeof score>>): string[] {
  const of = (key: Key) => s.points.get(key) as Point[]
  const v2 = of('v2')
  const days = new Set(v2.map((p) => p.day)).size
  const withBootstrap = days >= MIN_BOOTSTRAP_DAYS
  const random = createSeededRandom(BOOTSTRAP_SEED)
  const plan = withBootstrap ? { resample: () => random.sequence(0, 0), draws: BOOTSTRAP_DRAWS } : null
  const diff = (a: Point[], b: Point[], withInterval = true) => {
    if (a.length === 0) return '–'
    const d = pairedDifferences(a, b, withInterval ? plan : null).logLoss
    const interval = d.interval ? ` [${f(d.interval.low)}, ${f(d.interval.high)}]` : ''
    return `${f(d.value)} ± ${f(d.se)} (${d.se ? f(d.value / d.se, 1) : '–'} SE)${interval}`
  }
  const inBucket = (pts: Point[], b: { from: number; to: number }) =>
    pts.filter((p) => p.minutesLeft >= b.from && p.minutesLeft <= b.to)
  const slopes = (pts: Point[]) =>
    MINUTES_LEFT_BUCKETS.map((b) => f(scoresOf(inBucket(pts, b)).calibration?.slope.value, 2)).join(' | ')
  const rows: { key: Key; label: string }[] = [
    ...FORECASTERS.map(({ key, label }) => ({ key, label })),
    { key: 'even', label: 'even odds (50 %)' },
  ]
  const contests = new Set(v2.map((p) => p.contest)).size
  const unresolved = week.windows.length - s.resolved
  const first = week.windows[0]?.opensAt ?? 0
  const last = (week.windows.at(-1)?.opensAt ?? 0) + CONTEST_MS
  const versions = FORECASTERS.map(({ key, model }) => `${key} \`${model.version}\``).join(', ')
  const skippedText = Object.entries(s.skipped)
    .filter(([, n]) => n > 0)
    .map(([why, n]) => `${n} ${why}`)
    .join(', ')
  const cell = (r: TailRow | undefined) =>
    r && r.readings > 0
      ? `${f(r.realised, 0)} / ${f(r.claimed, 2)} = ${tailRatioText(r)} (${r.readings} readings, ${r.contests} windows)`
      : '–'
  const v2Tails = tailTable(v2)
  const v1Tails = tailTable(of('v1'))
  const dayList = [...new Set(v2.map((p) => p.day))].sort((a, b) => a - b)
  return [
    `Real Polymarket btc-updown-15m windows ${iso(first)} – ${iso(last)}: ${week.windows.length} windows in the file, ${unresolved} not resolved when it was fetched (left out); Binance BTCUSDT one-minute klines (${week.minutes.length} minutes) as the proxy, read at run time (\`npm run model:card:real:polymarket\`; the files are never committed). ${v2.length} readings of ${contests} windows over ${days} UTC days${skippedText ? ` (minutes without a reading: ${skippedText})` : ''}. No book, no price to beat and no final price are in these files: each reading is the model's own evidence, priced against the proxy's own strike (its close at the open: these windows settled on point prices), doubted as the engine doubts an unpublished strike (v2 by its Polymarket pool's measured error), and judged against the venue's outcome. No parameter of either model was fitted on these windows or on any Polymarket data of this period. ± one standard error clustered by window${withBootstrap ? `; [ ] a day-block bootstrap 95 % interval (${BOOTSTRAP_DRAWS} draws over ${days} days)` : ` (no day-block bootstrap interval: ${days} UTC days are too few blocks)`}. Versions: ${versions}.`,
    '',
    '| forecaster | readings | log loss | Brier | slope 1–2 | slope 3–7 | slope 8–14 | v2 − this, log loss paired |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(({ key, label }) => {
      const pts = of(key)
      const sc = scoresOf(pts)
      return `| ${label} | ${pts.length} | ${pm(sc.logLoss)} | ${f(sc.brier.value)} | ${slopes(pts)} | ${key === 'v2' ? '' : diff(v2, pts)} |`
    }),
    '',
    `By minutes left, v2 − v1, log loss paired: ${MINUTES_LEFT_BUCKETS.map((b) => `${b.label}: ${diff(inBucket(v2, b), inBucket(of('v1'), b), false)}`).join('; ')}. By UTC day, v2 − v1: ${dayList
      .map((d) => {
        const a = v2.filter((p) => p.day === d)
        const b = of('v1').filter((p) => p.day === d)
        return `${iso(d * 86_400_000).slice(5, 10)} ${diff(a, b, false)}`
      })
      .join(
        '; ',
      )}. Binance's own move from the open to the close disagreed with the venue's outcome on ${s.proxyDisagrees} of ${s.proxyJudged} windows (${f((100 * s.proxyDisagrees) / Math.max(1, s.proxyJudged), 1)} %): the proxy's distance from the venue's oracle, which no model priced from it can see.`,
    '',
    '**Tails**: realised / claimed wins of the long shot = the ratio ± its SE clustered by window, by claimed P(up) (readings and windows in the bucket).',
    '',
    '| claimed P(up) | v2, the model alone | v1 |',
    '|---|---|---|',
    ...v2Tails.map((row, i) => `| ${row.label} | ${cell(row)} | ${cell(v1Tails[i])} |`),
  ]
}

try {
  const week = await readWeek(positionals[0] ?? DEFAULT_REAL_DATA)
  const scored = await score(week)
  if ((scored.points.get('v2') ?? []).length === 0)
    throw new HistoryInputError(
      positionals[0] ?? DEFAULT_REAL_DATA,
      0,
      'no window could be priced (no resolved window inside the klines)',
    )
  const lines = [...cardLines(week, scored), ...crowdLines(week.books)]
  const card = readFileSync(values.card, 'utf8')
  writeFileSync(values.card, replaceBlock(card, 'model:card:real:polymarket', lines.join('\n'), values.card))
  log(`wrote ${values.card}`)
} catch (err) {
  if (!(err instanceof HistoryInputError || (err as NodeJS.ErrnoException).code)) throw err
  process.stderr.write(`model:card:real:polymarket: ${(err as Error).message}\n`)
  process.exit(1)
}
