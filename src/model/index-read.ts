// Reading the index from the venue's book (docs/model.md, "Reading the index from the book"; issue
// 29): the crowd quotes from the settlement index itself, so its book says a little of the basis the
// engine cannot see. Each hypothesis of the engine's index error — its own doubt's Gauss–Hermite
// nodes — prices the contest; the book, through the crowd's own map from P(up) to its quotes, weighs
// the hypotheses by Bayes' rule. The likelihood is a heavy-tailed one of the interval the book quotes, so a one-sided
// book is a bound and a side vanishing no jump; its noise grows as the book's weight falls, so a
// stale or wide book reads as little as it pools.
import { type BookEvidence, logitOf } from './book-pool.ts'
import { unitStudentTCdf } from './student-t.ts'

/**
 * The crowd's map at a whole number of minutes left: logit(its quote) = intercept + slope·logit(P(up)
 * at the index's true place) + noise of variance `noise`. Fitted on training readings' observables.
 */
export type CrowdMap = { minutesLeft: number; intercept: number; slope: number; noise: number }

/**
 * Gauss–Hermite's five nodes for a standard normal and their weights (probabilists', summing to 1):
 * a price is smooth in the index on the scale of the engine's doubt about it (half a basis point), so
 * five hypotheses integrate it far below any other error.
 */
export const ERROR_NODES = [-2.856970013872806, -1.355626179974266, 0, 1.355626179974266, 2.856970013872806]
export const ERROR_WEIGHTS = [
  0.011257411327720691, 0.22207592200561266, 0.5333333333333333, 0.22207592200561266, 0.011257411327720691,
]

/**
 * Quotes nearer 0 or 1 than the inner edge are not read, and from the outer edge in they are read
 * fully, the share ramping between: there the crowd's quotes are its long-shot bias, not the index.
 */
export const READ_EDGE = { outer: 0.02, inner: 0.05 } as const

/** The share of a book's read its quotes' place leaves: 0 at the edges, 1 inside, continuous. */
export function edgeShare(e: Pick<BookEvidence, 'lower' | 'upper'>): number {
  const centre = (e.lower + e.upper) / 2
  const inward = Math.min(centre, 1 - centre)
  return Math.min(1, Math.max(0, (inward - READ_EDGE.outer) / (READ_EDGE.inner - READ_EDGE.outer)))
}

/**
 * The crowd's quotes about its map are a unit-variance t this heavy, not a normal: a book far from
 * every hypothesis (a fat finger, news the engine has not seen) then says little of which is true,
 * where a normal's would pick the nearest with certainty however little the book counts.
 */
export const QUOTE_NU = 4

/** log of the quotes' mass between a and b sds (a < b), from the nearer tail so it keeps its digits far out. */
function logQuoteMass(a: number, b: number): number {
  if (b < 0) return logQuoteMass(-b, -a)
  return a > 0
    ? Math.log(unitStudentTCdf(-a, QUOTE_NU) - unitStudentTCdf(-b, QUOTE_NU))
    : Math.log(unitStudentTCdf(b, QUOTE_NU) - unitStudentTCdf(a, QUOTE_NU))
}

/** log of the quotes' density at z sds, less its constant. */
function logQuoteDensity(z: number): number {
  return (-(QUOTE_NU + 1) / 2) * Math.log1p((z * z) / (QUOTE_NU - 2))
}

/**
 * The hypotheses' weights once the book is seen: prior times the chance that the crowd's quote, under
 * the map, falls inside the interval the book quotes, summing to 1. `weight` in [0, 1] is how much the
 * book counts: the map's noise is divided by it, so at 0 the prior comes back unchanged.
 */
export function posteriorOfBook(
  prior: readonly number[],
  logits: readonly number[],
  e: Pick<BookEvidence, 'lower' | 'upper'>,
  map: Pick<CrowdMap, 'intercept' | 'slope' | 'noise'>,
  weight: number,
): number[] {
  if (!(weight > 0) || !(map.noise > 0)) return [...prior]
  const sd = Math.sqrt(map.noise / weight)
  const lo = logitOf(e.lower)
  const hi = logitOf(e.upper)
  const logs = prior.map((w, i) => {
    const centre = map.intercept + map.slope * (logits[i] as number)
    // an interval of no width (a crossed book's centre) is a point: its density
    const chance =
      hi - lo > 1e-9
        ? logQuoteMass((lo - centre) / sd, (hi - centre) / sd)
        : logQuoteDensity((lo - centre) / sd)
    return Math.log(w) + chance
  })
  const top = Math.max(...logs)
  if (!Number.isFinite(top)) return [...prior]
  const seen = logs.map((l) => Math.exp(l - top))
  const total = seen.reduce((a, b) => a + b, 0)
  return seen.map((w) => w / total)
}

/** The map for a reading `minutesLeft` from the close, if the fit made one. */
export function crowdMapAt(maps: readonly CrowdMap[] | undefined, minutesLeft: number): CrowdMap | undefined {
  return maps?.find((m) => m.minutesLeft === minutesLeft)
}

/**
 * P(up) with the index read from the book: each hypothesis x = doubt·node puts the index at the
 * engine's estimate times e^−x and is priced by `pricedAt(x)`; the book weighs them (posteriorOfBook,
 * `weight` the book's own times edgeShare) by `quotedAt(x)`, the price the crowd would have quoted
 * under it (a crowd that quotes late: at the spot it saw; else `pricedAt`). The model alone, `alone`,
 * moves by what the book moved the hypotheses' mean: at weight 0 it is `alone` exactly, so a book
 * fading out is no jump.
 */
export function readFromBook(
  alone: number,
  doubt: number,
  pricedAt: (x: number) => number,
  e: BookEvidence,
  map: CrowdMap,
  weight: number,
  quotedAt: (x: number) => number = pricedAt,
): number {
  const share = weight * edgeShare(e)
  if (!(share > 0)) return alone
  const prices = ERROR_NODES.map((z) => pricedAt(doubt * z))
  const quoted = quotedAt === pricedAt ? prices : ERROR_NODES.map((z) => quotedAt(doubt * z))
  const seen = posteriorOfBook(
    ERROR_WEIGHTS,
    quoted.map((p) => logitOf(p)),
    e,
    map,
    share,
  )
  const moved = prices.reduce(
    (sum, p, i) => sum + ((seen[i] as number) - (ERROR_WEIGHTS[i] as number)) * p,
    0,
  )
  return Math.min(1, Math.max(0, alone + moved))
}
