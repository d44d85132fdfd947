// The table `model:sweep` writes into docs/model.md for one look (a crowd sweep or a held-out card):
// made from the look's figures alone, so the committed block can be checked against its JSON.
import { tailRatioText } from '../src/domain/tail-table.ts'
import { type CardTailRow, pooledCardTail, pooledTailText } from './card-tails.ts'
import { gapClosed } from './model-pooled.ts'

/** A log-loss difference on `readings` readings, ± its SE clustered by contest. */
export type Diff = { value: number; se: number | null; readings: number }

/** One crowd × seed of a look, as its job writes it (and the look's JSON keeps it). */
export type JobFigures = {
  preset: string
  seed: number
  readings: number
  contests: number
  v2Version: string
  v2MinusRecal: Diff | null
  aloneMinusRecal: Diff | null
  recalMinusOracle: Diff | null
  v2MinusOracle: Diff | null
  /** log loss on the judged readings of each model, and the oracle's on them */
  logLoss: { v2: number; v1: number; oracleV2: number | null; oracleV1: number | null; recal: number | null }
  slopes: Record<string, number | null>
  /** the exact referee's own slopes on the same readings: what sampling alone gives on these days */
  oracleSlopes?: Record<string, number | null>
  /** the v2 tail table: claimed and realised long-shot wins by bucket, with their contests' sums */
  tails: CardTailRow[]
  /** the exact referee's tail table as if it had published on the same readings: what the paths'
   * luck alone gives, so a far bucket outside the gate can be told from a model's fault */
  oracleTails?: CardTailRow[]
  /** v2's tail table with the referee's probability in each outcome's place: its expected long-shot
   * wins on v2's own claims, so v2's miscalibration shows without the paths' luck */
  refereeOnV2Tails?: CardTailRow[]
  wallMs: number
}

/** How the look was run: the header of its table says it. */
export type SweepRun = { from: string; days: number; trainDays: number; jobs: number }

/** Seeds pooled: the readings-weighted mean, its SE from the seeds' (independent) clustered SEs. */
export function pooledDiff(ds: readonly (Diff | null)[]): Diff | null {
  const xs = ds.filter((d): d is Diff => d !== null)
  if (xs.length === 0) return null
  const n = xs.reduce((s, d) => s + d.readings, 0)
  const value = xs.reduce((s, d) => s + (d.readings / n) * d.value, 0)
  const se = xs.every((d) => d.se !== null)
    ? Math.sqrt(xs.reduce((s, d) => s + (d.readings / n) ** 2 * (d.se as number) ** 2, 0))
    : null
  return { value, se, readings: n }
}

/**
 * The v2 a table judged: one name, or each crowd's where a table pools runs made on different files
 * (a look made again crowd by crowd, the rest kept from the earlier file's run).
 */
function versionsOf(presets: readonly string[], figures: readonly JobFigures[]): string {
  const byCrowd = presets.map((p) => [p, figures.find((x) => x.preset === p)?.v2Version] as const)
  const names = new Set(byCrowd.map(([, v]) => v))
  if (names.size === 1) return `\`${figures[0]?.v2Version}\``
  return byCrowd.map(([p, v]) => `\`${v}\` for \`${p}\``).join(', ')
}

/** v1's gap to the referee that v2 closes, as the pooled table counts it (reading-weighted). */
function gapText(f: readonly JobFigures[]): string {
  const seeds = f.flatMap((x) =>
    x.logLoss.oracleV2 === null
      ? []
      : [{ readings: x.readings, v1: x.logLoss.v1, v2: x.logLoss.v2, oracle: x.logLoss.oracleV2 }],
  )
  if (seeds.length === 0 || seeds.length < f.length) return '–'
  const gap = seeds.reduce((s, x) => s + x.readings * (x.v1 - x.oracle), 0)
  return gap > 0 ? `${(gapClosed(seeds) * 100).toFixed(1)} %` : '–'
}

const f4 = (x: number) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(4)
const cell = (d: Diff | null) =>
  d
    ? `${f4(d.value)} ± ${d.se === null ? '–' : d.se.toFixed(4)}${d.se ? ` (${(d.value / d.se).toFixed(1)} SE)` : ''}`
    : '–'

/** The look's block: pooled rows by crowd, each seed, then slopes and tails. */
export function sweepTable(
  presets: readonly string[],
  seeds: readonly number[],
  figures: readonly JobFigures[],
  run: SweepRun,
): string {
  const wallMs = figures.reduce((s, f) => s + f.wallMs, 0) / Math.max(1, run.jobs)
  const lines: string[] = []
  lines.push(
    `Held-out seeds ${seeds.join(', ')}, ${run.days} days each from ${run.from} (the first ${run.trainDays} trains the recalibrated mid; the rest is judged); v2 = ${versionsOf(presets, figures)}. Δ log loss, SE clustered by contest, seeds pooled (weighted by readings); negative: the first is better. About ${(wallMs / 60_000).toFixed(0)} min of wall time on ${run.jobs} jobs.`,
  )
  lines.push('')
  lines.push(
    '| crowd (`SIM_PARAMS`) | readings | v2 − recal. mid | model alone − recal. mid | recal. mid − exact oracle | v2 − exact oracle | v1 → oracle gap closed |',
  )
  lines.push('|---|---|---|---|---|---|---|')
  for (const p of presets) {
    const f = figures.filter((x) => x.preset === p)
    lines.push(
      `| \`${p}\` | ${f.reduce((s, x) => s + x.readings, 0)} | ${cell(pooledDiff(f.map((x) => x.v2MinusRecal)))} | ${cell(pooledDiff(f.map((x) => x.aloneMinusRecal)))} | ${cell(pooledDiff(f.map((x) => x.recalMinusOracle)))} | ${cell(pooledDiff(f.map((x) => x.v2MinusOracle)))} | ${gapText(f)} |`,
    )
  }
  lines.push('')
  lines.push('Per seed (v2 − recal. mid · model alone − recal. mid · recal. mid − exact oracle):')
  lines.push('')
  lines.push(`| crowd | ${seeds.map((s) => `seed ${s}`).join(' | ')} |`)
  lines.push(`|---|${seeds.map(() => '---').join('|')}|`)
  for (const p of presets) {
    const row = seeds.map((s) => {
      const x = figures.find((y) => y.preset === p && y.seed === s)
      return x ? `${cell(x.v2MinusRecal)} · ${cell(x.aloneMinusRecal)} · ${cell(x.recalMinusOracle)}` : '–'
    })
    lines.push(`| \`${p}\` | ${row.join(' | ')} |`)
  }
  lines.push('')
  const buckets = Object.keys(figures[0]?.slopes ?? {})
  lines.push(
    'v2 calibration slope by minutes left (seeds averaged; in brackets the exact referee’s own slope on the same readings, which is 1 but for sampling: the days are the same for every crowd) and tail table (claimed → realised long-shot wins, seeds pooled, realised / claimed ± SE clustered by contest and the contests in the bucket; buckets with ≥ 5 claimed; in square brackets the exact referee’s own ratio as if it had published on the same readings, what the paths’ luck alone gives):',
  )
  lines.push('')
  lines.push(`| crowd | ${buckets.map((b) => `slope ${b}`).join(' | ')} | tails |`)
  lines.push(`|---|${buckets.map(() => '---').join('|')}|---|`)
  for (const p of presets) {
    const f = figures.filter((x) => x.preset === p)
    const mean = (pick: (x: JobFigures) => number | null | undefined): string | null => {
      const xs = f.map(pick).filter((v): v is number => v !== null && v !== undefined)
      return xs.length ? (xs.reduce((s, v) => s + v, 0) / xs.length).toFixed(2) : null
    }
    const slopes = buckets.map((b) => {
      const referee = mean((x) => x.oracleSlopes?.[b])
      return `${mean((x) => x.slopes[b]) ?? '–'}${referee ? ` (${referee})` : ''}`
    })
    const labels = (f[0]?.tails ?? []).map((t) => t.label)
    const tails = labels
      .map((label) => {
        const row = pooledCardTail(
          f.map((x) => x.tails),
          label,
        )
        if (!row || row.claimed < 5) return null
        const referee = f.every((x) => x.oracleTails)
          ? pooledCardTail(
              f.map((x) => x.oracleTails ?? []),
              label,
            )
          : null
        const refereeText = referee && referee.claimed > 0 ? ` [referee ${tailRatioText(referee)}]` : ''
        return `${label}: ${pooledTailText(row)}${refereeText}`
      })
      .filter((x) => x !== null)
    lines.push(`| \`${p}\` | ${slopes.join(' | ')} | ${tails.join('; ') || '–'} |`)
  }
  return lines.join('\n')
}
