// The forms of the sandbox crowd's bias (issue 29): how its price q departs from its own fair value
// q*. A model that inverts one form (a logit-linear recalibration) should not be handed that form
// only, so the sandbox has several: log-odds linear, a shrink toward even odds in probability, a
// floor under long shots, and a log-odds slope that moves over the contest.
import type { CrowdParams } from './sim-params.ts'

const logit = (q: number): number => Math.log(q / (1 - q))
const logistic = (x: number): number => 1 / (1 + Math.exp(-x))

/**
 * The crowd's price of YES from its fair value `fair` (in (0, 1)), at `progress` (0 at the open, 1 at
 * the close) of the contest, with its logit noise `noise`.
 */
export function biasedProbability(
  c: Pick<CrowdParams, 'bias' | 'gamma' | 'delta' | 'shrink' | 'floor' | 'gammaLate'>,
  fair: number,
  progress: number,
  noise: number,
): number {
  switch (c.bias) {
    case 'logit':
      return logistic(c.gamma * logit(fair) + c.delta + noise)
    case 'drift': {
      const gamma = c.gamma + (c.gammaLate - c.gamma) * progress
      return logistic(gamma * logit(fair) + c.delta + noise)
    }
    case 'shrink':
      return logistic(logit((1 - c.shrink) * fair + c.shrink / 2) + noise)
    case 'floor':
      return logistic(logit(Math.min(1 - c.floor, Math.max(c.floor, fair))) + noise)
  }
}
