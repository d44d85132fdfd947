// How many seconds behind the spot a venue's crowd quotes, measured from what the engine observes
// (issue 29; docs/model.md, "A crowd that quotes late"). A crowd that prices the index of L seconds
// ago puts a mid on the book that agrees best with the model priced at the spot of L seconds before
// the book's instant: at each reading with a two-sided book, the squared log-odds distance between
// the mid and the model alone at each lag 0..CROWD_LAG_MAX_S is kept, and the lag is the one whose
// distance summed over the readings of the last CROWD_LAG_WINDOW_MS is least. Nothing here sees the
// sandbox's truth: only the book, the proxy's recent prints and the model.

import type { ModelInputs } from './reading-model.ts'

/** The longest lag measured, in seconds: how far before its book a reading looks at the spot. */
export const CROWD_LAG_MAX_S = 15
/** Readings this far back measure the lag: a day, so every hour's crowd weighs in. */
export const CROWD_LAG_WINDOW_MS = 24 * 3_600_000
/**
 * Readings are kept this long past the window, though they no longer count, so a record stored a
 * little after an instant (crowd-lag-record.ts) still holds that instant's whole window: an engine
 * going on from a replay's checkpoint before the record reads the lag an uninterrupted one read.
 */
export const CROWD_LAG_KEEP_PAST_WINDOW_MS = 3_600_000
/** Fewer measuring readings than this in the window (about 3.5 hours of one series): no lag. */
export const CROWD_LAG_MIN_READINGS = 200
/**
 * Mids further from even odds than this in log-odds (about 2 ¢ or 98 ¢) measure nothing: a book
 * pinned at a tick says little of when the crowd looked, and its squared distances would drown the rest.
 */
const MID_LOGIT_LIMIT = 4

/** The model's probability is taken no closer to 0 and 1 than this, as the pool takes it (book-pool.ts). */
const MODEL_BOUND = 1e-4

/**
 * The spot the crowd was measured to quote from: the reading's spot `crowdLagSeconds` before its
 * book's instant, or null where the reading has none (no lag read, or that second unknown).
 */
export function spotAtCrowdLag(
  input: Pick<ModelInputs, 'spotsBeforeBook' | 'crowdLagSeconds'>,
): number | null {
  return input.spotsBeforeBook?.[input.crowdLagSeconds ?? 0] ?? null
}

/** One measuring reading: its instant and the squared distance at each lag 0..CROWD_LAG_MAX_S. */
export type CrowdLagReading = { at: number; distances: readonly number[] }

export type CrowdLag = {
  /** the lag in whole seconds measured from the readings before `at`; 0 until enough were seen */
  secondsAt(at: number): number
  /**
   * One reading made at `at`: its mid as P(up) and the model alone priced at the spot `L` seconds
   * before the book's instant, for L = 0..CROWD_LAG_MAX_S (null where that spot is unknown: the
   * reading then measures nothing), asked for only when the mid can measure (pricing sixteen spots
   * is the cost of a measure). Instants never decrease.
   */
  observe(at: number, midUp: number, modelAtLag: () => readonly (number | null)[]): void
  /**
   * the measuring readings kept (the window and CROWD_LAG_KEEP_PAST_WINDOW_MS before it, as of the
   * latest instant seen), oldest first
   */
  readings(): readonly CrowdLagReading[]
  /** how many readings this one has measured itself (restored ones not counted) */
  measured(): number
}

const logit = (p: number): number => Math.log(p / (1 - p))

/**
 * `restored`: readings an earlier engine measured (crowd-lag-record.ts), oldest first, so a restart
 * goes on with the lag it had instead of measuring afresh for hours.
 */
export function createCrowdLag(restored: readonly CrowdLagReading[] = []): CrowdLag {
  const kept: CrowdLagReading[] = [...restored]
  let measured = 0
  /** the index of the first reading at or after `from` (kept is in time order) */
  const firstFrom = (from: number): number => {
    let i = 0
    while (i < kept.length && (kept[i] as CrowdLagReading).at < from) i++
    return i
  }
  const expire = (at: number): void => {
    const drop = firstFrom(at - CROWD_LAG_WINDOW_MS - CROWD_LAG_KEEP_PAST_WINDOW_MS)
    if (drop > 0) kept.splice(0, drop)
  }
  return {
    secondsAt(at) {
      expire(at)
      const first = firstFrom(at - CROWD_LAG_WINDOW_MS)
      if (kept.length - first < CROWD_LAG_MIN_READINGS) return 0
      let best = 0
      let least = Number.POSITIVE_INFINITY
      for (let lag = 0; lag <= CROWD_LAG_MAX_S; lag++) {
        let sum = 0
        for (let i = first; i < kept.length; i++) sum += (kept[i] as CrowdLagReading).distances[lag] as number
        // strictly less: a feed whose prints do not move within seconds (a one-minute tape) ties
        // every lag and measures none
        if (sum < least) {
          least = sum
          best = lag
        }
      }
      return best
    },
    observe(at, midUp, modelAtLag) {
      if (!(midUp > 0 && midUp < 1)) return
      const mid = logit(midUp)
      if (Math.abs(mid) >= MID_LOGIT_LIMIT) return
      const model = modelAtLag()
      if (model.length <= CROWD_LAG_MAX_S) return
      const distances: number[] = []
      for (let lag = 0; lag <= CROWD_LAG_MAX_S; lag++) {
        const p = model[lag]
        if (p === null || p === undefined) return
        const q = Math.min(1 - MODEL_BOUND, Math.max(MODEL_BOUND, p))
        distances.push((mid - logit(q)) ** 2)
      }
      expire(at)
      kept.push({ at, distances })
      measured++
    },
    readings: () => kept.slice(),
    measured: () => measured,
  }
}
