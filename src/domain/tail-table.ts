// The tail table (decisions §15, signals.md §6): where a forecaster claims a long shot, how often the
// long shot actually came in. Log loss averages over the whole range; a model that is 3× too sure at
// 1 % barely moves it, yet that is where a bot buys cheap contracts. Pure arithmetic, no I/O.
//
// Buckets are on claimed P(up). By symmetry the long shot of a bucket below ½ is up and of one above ½
// is down: each row counts the long shot's claimed wins (Σ P(up) below ½, Σ P(down) above) beside
// its realised wins, so 95–98 % is the mirror of 2–5 % and every ratio reads the same way.
//
// A contest's readings share one outcome, so a bucket's realised wins come in clumps: a long shot that
// came in counts once for each of its readings in the bucket. The ratio's standard error is therefore
// clustered by contest (the ratio estimator's delta method over per-contest sums), and a row keeps the
// sums that let tables of several seeds be pooled exactly (`pooledTailRow`).
import { clusteredRatio, ratioSumsOf, type ScoredPoint } from './scores.ts'

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
  /** contests with a reading in the bucket: the clusters of `ratioSe` */
  contests: number
  /** the ratio's standard error clustered by contest; null with fewer than two contests */
  ratioSe: number | null
  /** Σ over contests of (realised)², realised × claimed and (claimed)², each contest's own sums in the bucket */
  moments: { realisedSq: number; cross: number; claimedSq: number }
}

function rowOf(
  b: Pick<TailBucket, 'label' | 'longShot'>,
  sums: Pick<TailRow, 'readings' | 'claimed' | 'realised' | 'contests' | 'moments'>,
): TailRow {
  const { readings, claimed, realised, contests, moments } = sums
  return {
    label: b.label,
    longShot: b.longShot,
    readings,
    claimed,
    realised,
    ratio: claimed > 0 ? realised / claimed : null,
    contests,
    ratioSe:
      claimed > 0
        ? clusteredRatio({
            num: realised,
            den: claimed,
            clusters: contests,
            numSq: moments.realisedSq,
            cross: moments.cross,
            denSq: moments.claimedSq,
          }).se
        : null,
    moments,
  }
}

export function tailTable(points: readonly ScoredPoint[]): TailRow[] {
  return TAIL_BUCKETS.map((b) => {
    const claimedOf: number[] = []
    const realisedOf: number[] = []
    const contestOf: string[] = []
    for (const pt of points) {
      const q = b.longShot === 'up' ? pt.p : 1 - pt.p
      if (!(q >= b.from && q < b.to)) continue
      claimedOf.push(q)
      realisedOf.push(b.longShot === 'up' ? pt.y : 1 - pt.y)
      contestOf.push(pt.contest)
    }
    const s = ratioSumsOf(realisedOf, claimedOf, contestOf)
    return rowOf(b, {
      readings: claimedOf.length,
      claimed: s.den,
      realised: s.num,
      contests: s.clusters,
      moments: { realisedSq: s.numSq, cross: s.cross, claimedSq: s.denSq },
    })
  })
}

/**
 * One bucket's rows from tables over disjoint contests (several seeds, several crowds) as one row:
 * the sums add, and the clustered SE is recomputed at the pooled ratio. Rows are matched by the
 * caller; the first names the bucket.
 */
export function pooledTailRow(rows: readonly TailRow[]): TailRow | null {
  const [first] = rows
  if (!first) return null
  const add = (pick: (r: TailRow) => number): number => rows.reduce((s, r) => s + pick(r), 0)
  return rowOf(first, {
    readings: add((r) => r.readings),
    claimed: add((r) => r.claimed),
    realised: add((r) => r.realised),
    contests: add((r) => r.contests),
    moments: {
      realisedSq: add((r) => r.moments.realisedSq),
      cross: add((r) => r.moments.cross),
      claimedSq: add((r) => r.moments.claimedSq),
    },
  })
}

/** A row's ratio as tables print it: "0.97 ± 0.21", "0.97" without an error, "–" with nothing claimed. */
export function tailRatioText(row: Pick<TailRow, 'ratio' | 'ratioSe'>): string {
  if (row.ratio === null) return '–'
  return row.ratioSe === null ? row.ratio.toFixed(2) : `${row.ratio.toFixed(2)} ± ${row.ratioSe.toFixed(2)}`
}
