// How a candidate parameter file is judged against the shipped one on validation readings (docs/model.md,
// "A jump term from the proxy's seconds" and "The level error's tail"): each file priced by the model
// itself on the same readings; v2 and the model alone against the exact referee (the expected log
// loss above it, the long shots against its expected wins) and the outcomes' log loss paired against
// the first file. The referee is used only to measure.
import type { ModelInputs } from '../src/domain/reading-model.ts'
import { clusteredMean, logLossOf, type ScoredPoint } from '../src/domain/scores.ts'
import { pooledTailRow, type TailRow, tailTable } from '../src/domain/tail-table.ts'
import { createSimOracle } from '../src/feeds/sim/oracle.ts'
import type { SimParams } from '../src/feeds/sim/sim-params.ts'
import type { ModelV2Params } from '../src/model/params.ts'
import { settlementMeanProbability } from '../src/model/settlement-mean-model.ts'
import { tapeFitSource } from './fit/tape-source.ts'
import { forEachSandboxReading, sandboxWorld } from './sandbox-readings.ts'

/** A parameter file under judgement; the first of a list is the one the others are paired against. */
export type Candidate = { name: string; params: ModelV2Params }

/** One settled reading to judge: its inputs, its contest, the outcome and the referee's P(up). */
export type Judged = { inputs: ModelInputs; contest: string; y: number; referee: number }

/** Per candidate, `NAME v2` and `NAME alone`: expected log loss above the referee, long shots, outcomes. */
export type CrowdResult = {
  crowd: string
  readings: number
  cells: Record<
    string,
    {
      excess: number
      shots: (TailRow | null)[]
      outcomes: { value: number; se: number | null } | null
      /** the expected log loss above the referee against the first file's, paired, clustered by contest */
      expected: { value: number; se: number | null } | null
    }
  >
}

type Point = ScoredPoint & { referee: number }

/** Every candidate on the readings `readings` hands over. */
export async function judgeCandidates(
  label: string,
  candidates: readonly Candidate[],
  readings: (each: (r: Judged) => void) => Promise<void>,
): Promise<CrowdResult> {
  const base = candidates[0]?.name
  const points: Record<string, Point[]> = {}
  for (const c of candidates) {
    points[`${c.name} v2`] = []
    points[`${c.name} alone`] = []
  }
  await readings(({ inputs, contest, y, referee }) => {
    for (const c of candidates) {
      const out = settlementMeanProbability(inputs, c.params)
      points[`${c.name} v2`]?.push({ contest, y, p: out.probabilityUp, referee })
      points[`${c.name} alone`]?.push({ contest, y, p: out.modelAloneUp ?? out.probabilityUp, referee })
    }
  })
  const cells: CrowdResult['cells'] = {}
  for (const [key, ps] of Object.entries(points)) {
    const [name, kind] = key.split(' ') as [string, string]
    const paired = points[`${base} ${kind}`] as Point[]
    const kl = ps.map((pt) => logLossOf(pt.p, pt.referee) - logLossOf(pt.referee, pt.referee))
    const contests = ps.map((pt) => pt.contest)
    const table = tailTable(ps.map((pt) => ({ contest: pt.contest, y: pt.referee, p: pt.p })))
    const mirrored = (a: string, b: string) =>
      pooledTailRow(table.filter((row) => row.label === a || row.label === b))
    cells[key] = {
      excess: kl.reduce((s, x) => s + x, 0) / kl.length,
      shots: [mirrored('0.5–2 %', '98–99.5 %'), mirrored('2–5 %', '95–98 %')],
      outcomes:
        name === base
          ? null
          : clusteredMean(
              ps.map((pt, i) => logLossOf(pt.p, pt.y) - logLossOf((paired[i] as Point).p, pt.y)),
              contests,
            ),
      expected:
        name === base
          ? null
          : clusteredMean(
              ps.map((pt, i) => logLossOf(pt.p, pt.referee) - logLossOf((paired[i] as Point).p, pt.referee)),
              contests,
            ),
    }
  }
  return { crowd: label, readings: points[`${base} v2`]?.length ?? 0, cells }
}

/**
 * Polymarket's settled readings from one `sim tape --venue polymarket` set per validation seed (in
 * `seeds`' order), through the replay's reading step, with the referee's P(up) by that venue's rule.
 */
export function polymarketTapeReadings(
  tapes: readonly string[],
  seeds: readonly number[],
): (each: (r: Judged) => void) => Promise<void> {
  if (tapes.length > seeds.length) throw new Error('more Polymarket tape sets than validation seeds')
  return async (each) => {
    for (const [i, tape] of tapes.entries()) {
      const seed = seeds[i] as number
      const oracle = createSimOracle({ seed })
      const source = await tapeFitSource(tape)
      await source.forEachReading((r) => {
        if (r.settledSide === null) return
        each({
          inputs: r.inputs,
          contest: `${seed}:${r.ticker}`,
          y: r.settledSide === 'up' ? 1 : 0,
          referee: oracle.polymarketProbabilityUp(r.inputs.opensAt, r.inputs.spotObservedAt),
        })
      })
    }
  }
}

/**
 * Kalshi's settled readings on validation seeds, each with the crowd `params` gives (a SIM_PARAMS
 * preset), through the engine's own reading step, with the exact referee's P(up) by Kalshi's rule.
 */
export function kalshiSandboxReadings(
  seeds: readonly number[],
  params: SimParams,
  span: { from: number; days: number },
): (each: (r: Judged) => void) => Promise<void> {
  return async (each) => {
    for (const seed of seeds) {
      const oracle = createSimOracle({ seed, params })
      await forEachSandboxReading(sandboxWorld(seed, params), span, (r) => {
        if (r.settledSide === null) return
        each({
          inputs: r.inputs,
          contest: `${seed}:${r.ticker}`,
          y: r.settledSide === 'up' ? 1 : 0,
          referee: oracle.probabilityYes(r.ticker, r.at),
        })
      })
    }
  }
}

/**
 * `crowd=DIR,DIR,…` sets separated by ';' (a set without `crowd=` is the `ewma` crowd's): one tape set
 * per validation seed, a row per crowd.
 */
export function parseTapeSets(text: string): { crowd: string; tapes: string[] }[] {
  return text
    .split(';')
    .filter((set) => set.trim() !== '')
    .map((set) => {
      const [crowd, dirs] = set.includes('=') ? (set.split('=', 2) as [string, string]) : ['ewma', set]
      return { crowd: crowd.trim(), tapes: dirs.split(',').filter((t) => t !== '') }
    })
}

/** The sum over `results` of the long shots' distances from 1 (both buckets) and of the excesses. */
export function summed(results: readonly CrowdResult[], key: string): { distance: number; excess: number } {
  let distance = 0
  let excess = 0
  for (const r of results) {
    const cell = r.cells[key]
    if (!cell) continue
    excess += cell.excess
    for (const row of cell.shots) if (row?.ratio != null) distance += Math.abs(row.ratio - 1)
  }
  return { distance, excess }
}
