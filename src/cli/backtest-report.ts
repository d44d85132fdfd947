// The backtest as a person reads it: a short summary, the calibration table, or the threshold grid.
import type { BacktestFilter, BacktestReport, GridCell, Interval } from '../domain/backtest.ts'

const pct = (x: number | null, digits = 1) => (x === null ? '—' : `${(x * 100).toFixed(digits)}%`)
const cents = (x: number | null) => (x === null ? '—' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}¢`)
const num = (x: number | null, digits: number) => (x === null ? '—' : x.toFixed(digits))
const range = (i: Interval | null) => (i === null ? '—' : `${pct(i.low)} – ${pct(i.high)}`)
const centsRange = (i: { low: number; high: number } | null) =>
  i === null ? '—' : `${cents(i.low)} – ${cents(i.high)}`
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z')

function describeFilter(filter: BacktestFilter, grid = false): string[] {
  const window =
    filter.since === undefined && filter.before === undefined
      ? 'all settled contests'
      : `contests expiring ${filter.since === undefined ? 'up to' : `from ${iso(filter.since)}`}${
          filter.before === undefined
            ? ' on'
            : ` ${filter.since === undefined ? '' : 'to '}${iso(filter.before)}`
        } (inclusive)`
  const thresholds = [
    ...(grid
      ? ['confidence and edge thresholds: the grid below']
      : [
          `confidence ≥ ${filter.minConfidence ?? 'any'}`,
          `edge ≥ ${filter.minEdge === undefined ? 'any' : `${filter.minEdge}¢`}`,
        ]),
    `side ${filter.side ?? 'any'}`,
  ].join(', ')
  return [`backtest of ${filter.series ?? 'every series'}: ${window}`, `filter: ${thresholds}`]
}

export function formatBacktest(r: BacktestReport): string {
  const lines = [
    ...describeFilter(r.filter),
    '',
    `contests          ${r.contests} settled`,
    `signals           ${r.signals} passing: ${r.wins} wins, ${r.losses} losses, ${r.voids} voids`,
    `win rate          ${pct(r.winRate)} (95% Wilson interval, clustered by contest: ${range(r.winRateInterval)})`,
    `average entry     ${num(r.averageEntryCents, 2)}¢  (confidence ${num(r.averageConfidence, 2)})`,
    `edge              claimed ${cents(r.claimedEdgeCents)}, realised ${cents(r.realisedEdgeCents)} per graded signal`,
    `profit            ${cents(r.profitPerContractCents)} per contract (95% ${centsRange(r.profitInterval)}), ${cents(r.totalProfitCents)} in all`,
    `after the fee     ${cents(r.profitPerContractAfterFeeCents)} per contract (95% ${centsRange(r.profitAfterFeeInterval)}), ${cents(r.totalProfitAfterFeeCents)} in all; fees ${cents(r.totalFeeCents)}`,
    `Brier score       ${num(r.brierScore, 4)} (0 is perfect; always saying 50 scores 0.25)`,
    '',
    'one contract per signal at its entry price: a win pays 100 − entry, a loss costs the entry, a void 0;',
    "after the fee, each buy is one order paying its venue's taker fee: Kalshi 7·p·(1 − p) ¢ with the debit rounded up to the cent, Polymarket 7·p·(1 − p) ¢ (none on a void);",
    'intervals are clustered by contest: the signals of one contest share its outcome',
    '',
    'calibration (graded signals by confidence)',
    table(
      ['confidence', 'signals', 'wins', 'mean conf.', 'win rate', '95% interval'],
      r.calibration
        .filter((b) => b.signals > 0)
        .map((b) => [
          `${b.from}–${b.to}`,
          String(b.signals),
          String(b.wins),
          num(b.meanConfidence, 1),
          pct(b.winRate),
          range(b.winRateInterval),
        ]),
    ),
  ]
  return `${lines.join('\n')}\n`
}

export function formatGrid(filter: BacktestFilter, contests: number, grid: readonly GridCell[]): string {
  const confidences = [...new Set(grid.map((c) => c.minConfidence))]
  const edges = [...new Set(grid.map((c) => c.minEdge))]
  const cell = (c: number | null, e: number | null) =>
    grid.find((x) => x.minConfidence === c && x.minEdge === e)!
  const head = ['', ...edges.map((e) => (e === null ? 'edge any' : `edge ≥ ${e}¢`))]
  const matrix = (title: string, show: (x: GridCell) => string) => [
    title,
    table(
      head,
      confidences.map((c) => [
        c === null ? 'confidence any' : `confidence ≥ ${c}`,
        ...edges.map((e) => show(cell(c, e))),
      ]),
    ),
    '',
  ]
  const lines = [
    ...describeFilter(filter, true),
    `contests: ${contests} settled`,
    '',
    ...matrix('signals passing', (x) => String(x.signals)),
    ...matrix('win rate', (x) => pct(x.winRate)),
    ...matrix('profit per contract', (x) => cents(x.profitPerContractCents)),
    ...matrix("profit per contract after the venue's taker fee", (x) =>
      cents(x.profitPerContractAfterFeeCents),
    ),
  ]
  return `${lines.join('\n').trimEnd()}\n`
}

/** Left-aligned first column, right-aligned numbers. */
function table(head: string[], rows: string[][]): string {
  const all = [head, ...rows]
  const widths = head.map((_, i) => Math.max(...all.map((r) => [...(r[i] ?? '')].length)))
  return all
    .map((r) =>
      r
        .map((cellText, i) => {
          const pad = widths[i]! - [...cellText].length
          return i === 0 ? cellText + ' '.repeat(pad) : ' '.repeat(pad) + cellText
        })
        .join('  ')
        .trimEnd()
        .replace(/^/, '  '),
    )
    .join('\n')
}
