// The tail table (decisions §15, signals.md §6): where a forecaster claims a long shot, how often the
// long shot actually came in. Log loss averages over the whole range; a model that is 3× too sure at
// 1 % barely moves it, yet that is where a bot buys cheap contracts. Pure arithmetic, no I/O.
//
// Buckets are on claimed P(up). By symmetry the long shot of a bucket below ½ is up and of one above ½
// is down: each row counts the long shot's claimed wins (Σ P(up) below ½, Σ P(down) above) beside
// its realised wins, so 95–98 % is the mirror of 2–5 % and every ratio reads the same way.
import type { ScoredPoint } from './scores.ts'

type TailBucket = {
  label: string
  /** the long shot's probability lies in [from, to) */
  from: number
  to: number
  longShot: 'up' | 'down'
}

export const TAIL_BUCKETS: readonly TailBucket[] = [
  { label: '0–0.5 %', from: 0, to: 0.005, longShot: 'up' },
  { label: '0.5–2 %', from: 0.005, to: 0.02, longShot: 'up' },
  { label: '2–5 %', from: 0.02, to: 0.05, longShot: 'up' },
  { label: '95–98 %', from: 0.02, to: 0.05, longShot: 'down' },
  { label: '98–99.5 %', from: 0.005, to: 0.02, longShot: 'down' },
  { label: '99.5–100 %', from: 0, to: 0.005, longShot: 'down' },
]

export type TailRow = {
  /** the bucket of claimed P(up) */
  label: string
  longShot: 'up' | 'down'
  readings: number
  /** the long shot's claimed wins: the sum of its probabilities */
  claimed: number
  /** the long shot's realised wins */
  realised: number
  /** realised / claimed: 1 when the tail is priced right, above 1 when the model is too sure; null when nothing was claimed */
  ratio: number | null
}

export function tailTable(points: readonly Pick<ScoredPoint, 'p' | 'y'>[]): TailRow[] {
  return TAIL_BUCKETS.map((b) => {
    let readings = 0
    let claimed = 0
    let realised = 0
    for (const pt of points) {
      const q = b.longShot === 'up' ? pt.p : 1 - pt.p
      if (!(q >= b.from && q < b.to)) continue
      readings++
      claimed += q
      realised += b.longShot === 'up' ? pt.y : 1 - pt.y
    }
    return {
      label: b.label,
      longShot: b.longShot,
      readings,
      claimed,
      realised,
      ratio: claimed > 0 ? realised / claimed : null,
    }
  })
}
