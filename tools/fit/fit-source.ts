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
