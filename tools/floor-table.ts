// The `model:floor` tables (docs/model.md, "What the proxy cannot know") from the figures the run
// keeps in docs/model-floor.json: the tool writes both, and test/floor-table.test.ts checks that the
// committed block is what the JSON gives, so a figure quoted from the card can be traced to the run.
import type { Estimate } from '../src/domain/scores.ts'

/** Log loss minus the referee's on the same readings, per pricing. */
export const PRICINGS = [
  'v1',
  'v2',
  'v2 alone',
  'v2 on the index',
  'v2 alone on the index',
  'the referee on the proxy',
  'v2 reading the index from the book',
  'the referee on the proxy and the book',
] as const
export type Pricing = (typeof PRICINGS)[number]

/** The pricings judged against v1's gap: every one but v1. */
export type Closer = Exclude<Pricing, 'v1'>

export type SeedFloor = {
  seed: number
  readings: number
  contests: number
  /** the engine's index estimate's log error against the index print (mean, sd): its law on the seed */
  indexError: { mean: number; sd: number }
  /** mean log loss − the referee's, by outcomes, SE clustered by contest */
  excess: Record<Pricing, Estimate>
  /** the same by expectation: the referee's probability in the outcome's place (no outcome luck) */
  expected: Record<Pricing, Estimate>
  /** v2 − v2 on the index, paired: what the proxy's basis costs v2 */
  proxyCost: Estimate
  /** v2 − the referee on the proxy, paired: below 0 where v2 does better than knowing everything but the index */
  againstProxyReferee: Estimate
  /** v2 reading the index from the book − v2, paired, by outcomes and by expectation: what the read adds */
  bookRead: { outcomes: Estimate; expected: Estimate }
  /** the share of v1's excess each closes, by outcomes and by expectation, ± SE clustered by contest */
  closed: Record<Closer, Estimate>
  closedExpected: Record<Closer, Estimate>
}

export const pm = (e: Estimate, digits = 4): string => {
  const v = `${e.value >= 0 ? '+' : '−'}${Math.abs(e.value).toFixed(digits)}`
  return e.se === null ? v : `${v} ± ${e.se.toFixed(digits)}`
}
export const pct = (e: Estimate): string =>
  `${(100 * e.value).toFixed(1)}${e.se === null ? '' : ` ± ${(100 * e.se).toFixed(1)}`} %`

/** The proxy's tables' pricings; the book's read has a table of its own. */
export const BOOK_READS = [
  'v2 reading the index from the book',
  'the referee on the proxy and the book',
] as const
const PROXY_PRICINGS = PRICINGS.filter((k) => !(BOOK_READS as readonly Pricing[]).includes(k))
const SHOWN_CLOSERS: readonly Closer[] = ['v2', 'v2 alone', 'v2 on the index', 'the referee on the proxy']

/** The run a table reads: its span, its wall time in whole minutes and the version it priced. */
export type FloorRun = { from: string; days: number; minutes: number; version: string }

/** docs/model.md's `model:floor` block from a run's figures (the JSON it writes beside it). */
export function floorTable(floors: readonly SeedFloor[], run: FloorRun): string {
  const { from, days } = run
  const lines = [
    `Held-out seeds ${floors.map((f) => f.seed).join(', ')}, ${days} days each from ${from} (the card's days), \`ewma\` crowd; v2 = \`${run.version}\`. Each reading the engine would make, priced in process (the fit's reading step, not a replay: within a few tenths of a point of the card's figures). The referee on the proxy knows all the referee knows but the index: it sees the index where the engine puts it (its spot less its basis estimate) and doubts that by the error's law on the seed (Gaussian; its sd below). ± one SE clustered by contest. About ${run.minutes} min on one core.`,
    '',
    "By outcomes: mean log loss − the exact referee's on the same readings.",
    '',
    `| seed | readings | ${PROXY_PRICINGS.join(' | ')} | proxy's cost (v2 − v2 on the index) | v2 − the referee on the proxy |`,
    `|---|---|${PROXY_PRICINGS.map(() => '---|').join('')}---|---|`,
  ]
  for (const f of floors)
    lines.push(
      `| ${f.seed} | ${f.readings} | ${PROXY_PRICINGS.map((k) => pm(f.excess[k])).join(' | ')} | ${pm(f.proxyCost)} | ${pm(f.againstProxyReferee)} |`,
    )
  lines.push(
    '',
    "By expectation (the referee's probability in each outcome's place: no outcome luck): expected log loss above the referee's, v1 and the referee on the proxy; then the share of v1's gap each closes, by outcomes / by expectation.",
    '',
    `| seed | the engine's index error (sd) | v1 | the referee on the proxy | ${SHOWN_CLOSERS.map((k) => `${k}: gap closed`).join(' | ')} |`,
    `|---|---|---|---|${SHOWN_CLOSERS.map(() => '---|').join('')}`,
  )
  for (const f of floors)
    lines.push(
      `| ${f.seed} | ${(f.indexError.sd * 1e4).toFixed(2)} bp | ${pm(f.expected.v1)} | ${pm(f.expected['the referee on the proxy'])} | ${SHOWN_CLOSERS.map((k) => `${pct(f.closed[k])} / ${pct(f.closedExpected[k])}`).join(' | ')} |`,
    )
  lines.push(
    '',
    "Reading the index from the book in sample (book-index-read.ts): each index hypothesis weighed by the book's mid (two-sided, at most 10 ¢ wide, inside 2–98 %) through the crowd's map from P(up) to its mid, fitted per minutes left on the seed's own mids and v2 alone's prices (observables; nothing from the index or the outcomes). For v2 it takes the place of v2's own read of the book (the model's, since `ea6b9d1e`: its map fitted on the training seeds, index-read.ts), against the same doubt (v2's basis variance), and is pooled by v2's pool; the referee on the proxy reads against the error's law. A diagnostic of the information, never a model.",
    '',
    `| seed | the in-sample read − v2, by outcomes | by expectation | ${BOOK_READS.map((k) => `${k}: gap closed`).join(' | ')} |`,
    `|---|---|---|${BOOK_READS.map(() => '---|').join('')}`,
  )
  for (const f of floors)
    lines.push(
      `| ${f.seed} | ${pm(f.bookRead.outcomes, 5)} | ${pm(f.bookRead.expected, 5)} | ${BOOK_READS.map((k) => `${pct(f.closed[k])} / ${pct(f.closedExpected[k])}`).join(' | ')} |`,
    )
  return lines.join('\n')
}
