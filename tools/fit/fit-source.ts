// What model v2's fit reads, from the sandbox or from tapes alike (decisions §15): the proxy's closes,
// and every reading the engine would have made through its own reading step, with the contest's
// outcome and settlement price — all things a recording of a real venue holds. No hidden truth.
import type { Side } from '../../src/domain/contest.ts'
import type { MinuteClose } from '../../src/domain/price-history.ts'
import type { ModelInputs, ReadingModel } from '../../src/domain/reading-model.ts'
import type { Training } from '../../src/model/params.ts'
import { V2_HISTORY_MINUTES, V2_MIN_HISTORY_CLOSES } from '../../src/model/settlement-mean-model.ts'

export type FitReading = {
  ticker: string
  minute: number
  expiresAt: number
  inputs: ModelInputs
  /** null when the contest was voided */
  settledSide: Side | null
  /**
   * The proxy's mean over the contest's settlement minute minus the venue's settlement price (the
   * basis the settlement showed), on minute-14 readings; null where either is unknown.
   */
  realisedBasis: number | null
  /**
   * The variance (relative, squared log units) of that measurement itself, beside it: the proxy's
   * mean over a minute taken from its two bounding closes is off the path's mean by that minute's
   * squared return over 12 on average (a move at a uniform instant of the minute); 0 when the proxy
   * was seen every second. A fit subtracts it, so the basis estimate is not blamed for the ruler.
   */
  realisedBasisNoise: number | null
  /**
   * which of several tape sets read as one (unionFitSource) the reading came from: each set is its
   * own timeline (its own seed or recording), so window edges are compared within a set only
   */
  run?: number
  /** the venue's settlement price beside them (the next window's strike on Polymarket), same readings */
  settledPriceDollars: number | null
}

export type FitSource = {
  /** contests expiring in [from, until] are read; closes from `closesFrom` to `until` */
  from: number
  until: number
  closesFrom: number
  /** the provenance the parameter file records, given the readings the fit used */
  training(readings: number, contests: number): Training
  /** each stretch of the proxy's one-minute closes (a seed, a tape set), oldest first */
  closeRuns(): Promise<MinuteClose[][]>
  forEachReading(each: (r: FitReading) => void): Promise<void>
}

/** What a parameter set was fitted on, in words for the model card. */
export function trainingText(t: Training): string {
  return t.source === 'sandbox'
    ? `sandbox seeds ${t.seeds.map((seed, i) => (t.crowds ? `${seed} (${t.crowds[i]})` : seed)).join(', ')}, ${t.days} days each from ${t.from}, ${t.readings} readings`
    : `tapes ${t.tapes.join(', ')}, contests expiring ${t.from} – ${t.until}: ${t.contests} contests, ${t.readings} readings`
}

/** The reading step's model while fitting: v2's stated history, and no probability of its own. */
export const observerModel: ReadingModel = {
  version: 'observer',
  historyMinutes: V2_HISTORY_MINUTES,
  minHistoryCloses: V2_MIN_HISTORY_CLOSES,
  probabilityUp: () => ({ probabilityUp: 0.5, sigmaPerMinute: 0, effectiveMinutes: 0 }),
}

/**
 * Several tape sets read as one (`--polymarket-tapes A,B,…`): each set follows one timeline and one
 * crowd, so a pool fitted on a mixture of crowds needs several. Their closes are separate runs and
 * their readings are read set after set; the provenance lists every tape in that order, over the
 * span from the earliest set's start to the latest's end.
 */
export function unionFitSource(sources: readonly FitSource[]): FitSource {
  const [first] = sources
  if (!first) throw new Error('no tape set to read')
  if (sources.length === 1) return first
  const from = Math.min(...sources.map((s) => s.from))
  const until = Math.max(...sources.map((s) => s.until))
  return {
    from,
    until,
    get closesFrom() {
      return Math.min(...sources.map((s) => s.closesFrom))
    },
    training(readings, contests) {
      const each = sources.map((s) => s.training(0, 0))
      const tapes = each.flatMap((t) => (t.source === 'tapes' ? t.tapes : []))
      const base = first.training(readings, contests)
      if (base.source !== 'tapes') return base
      return {
        ...base,
        tapes,
        from: new Date(from).toISOString(),
        until: new Date(until).toISOString(),
      }
    },
    async closeRuns() {
      const runs: MinuteClose[][] = []
      for (const s of sources) runs.push(...(await s.closeRuns()))
      return runs
    },
    async forEachReading(each) {
      for (const [run, s] of sources.entries()) await s.forEachReading((r) => each({ ...r, run }))
    },
  }
}
