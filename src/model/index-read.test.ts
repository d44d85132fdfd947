// Reading the index from the book (issue 29): the hypotheses of the engine's index error weighed by
// the book through the crowd's map; a parameter file without maps publishes as before; the read moves
// the model toward the index the book quotes from, reads a stale or edge book less, and moves
// continuously as the book does — a side vanishing included.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { MinuteClose } from '../domain/price-history.ts'
import type { BookState, ModelInputs } from '../domain/reading-model.ts'
import { bookEvidence } from './book-pool.ts'
import { type CrowdMap, ERROR_WEIGHTS, edgeShare, posteriorOfBook, readFromBook } from './index-read.ts'
import { V2_PARAMS } from './models.ts'
import { checkModelV2Params, type ModelV2Params } from './params.ts'
import { settlementMeanProbability, settlementPricing } from './settlement-mean-model.ts'

const MINUTE = 60_000
const OPEN = Date.parse('2026-11-24T15:00:00Z')

/** A crowd that quotes P(up) at the true index with a little noise and no bias. */
const honest = (minutesLeft: number, noise = 0.01): CrowdMap => ({
  minutesLeft,
  intercept: 0,
  slope: 1,
  noise,
})
const { bookRead: shippedMaps, bookReadAtLag: _atLag, ...unread } = V2_PARAMS
/** The shipped file without its maps: the book pooled, not read for the index. */
const POOLING: ModelV2Params = unread
const READING: ModelV2Params = { ...unread, bookRead: Array.from({ length: 14 }, (_, i) => honest(i + 1)) }

/** A day of closes of a seeded walk (σ ≈ 5 bp a minute), every minute with its range. */
function closes(end: number): MinuteClose[] {
  let seed = 7
  let px = 90_000
  const out: MinuteClose[] = []
  for (let m = end - 1_440 * MINUTE; m <= end; m += MINUTE) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    px *= Math.exp(0.0005 * (seed / 2 ** 31 - 0.5) * 3.46)
    out.push({ at: m, priceDollars: px, highDollars: px * 1.0003, lowDollars: px * 0.9997 })
  }
  return out
}

function inputs(minute: number, spotOverStrike: number, book: BookState | null): ModelInputs {
  const at = OPEN + minute * MINUTE
  const c = closes(at)
  const spot = (c.at(-1) as MinuteClose).priceDollars
  return {
    spotDollars: spot,
    spotObservedAt: at,
    strikeDollars: spot / spotOverStrike,
    opensAt: OPEN,
    expiresAt: OPEN + 15 * MINUTE,
    closes: c,
    basisSamples: [],
    midProbability:
      book?.upAskCents != null && book.downAskCents != null
        ? (book.upAskCents + 100 - book.downAskCents) / 200
        : null,
    ...(book ? { book } : {}),
  }
}

const fresh = (up: number | null, down: number | null, ageMs = 0): BookState => ({
  upAskCents: up,
  downAskCents: down,
  ageMs,
})
/** A book one cent wide around `p`. */
const around = (p: number, ageMs = 0): BookState => fresh(p * 100 + 0.5, (1 - p) * 100 + 0.5, ageMs)
const up = (params: ModelV2Params, input: ModelInputs) =>
  settlementMeanProbability(input, params).probabilityUp

/** Tenths of a cent from a to b inclusive. */
const tenths = (a: number, b: number): number[] =>
  Array.from({ length: Math.round((b - a) * 10) + 1 }, (_, i) => Math.round(a * 10 + i) / 10)

describe('the hypotheses weighed by the book', () => {
  const logits = [-2, -1, 0, 1, 2]
  const narrow = (p: number) => ({ lower: p - 0.005, upper: p + 0.005 })
  const sigmoid = (l: number) => 1 / (1 + Math.exp(-l))

  it('leaves the prior alone where the book counts for nothing', () => {
    assert.deepEqual(posteriorOfBook(ERROR_WEIGHTS, logits, narrow(0.73), honest(5), 0), ERROR_WEIGHTS)
  })

  it('moves the weight toward the hypothesis whose price the book quotes, the more the surer the crowd', () => {
    const quoted = narrow(sigmoid(1))
    const loose = posteriorOfBook(ERROR_WEIGHTS, logits, quoted, honest(5, 0.5), 1)
    const tight = posteriorOfBook(ERROR_WEIGHTS, logits, quoted, honest(5, 0.01), 1)
    assert.ok((loose[3] as number) > (ERROR_WEIGHTS[3] as number))
    assert.ok((tight[3] as number) > (loose[3] as number))
    assert.ok((tight[3] as number) > 0.99)
    // a book worth a quarter reads as a crowd four times as noisy
    assert.deepEqual(
      posteriorOfBook(ERROR_WEIGHTS, logits, quoted, honest(5, 0.02), 0.25),
      posteriorOfBook(ERROR_WEIGHTS, logits, quoted, honest(5, 0.08), 1),
    )
  })

  it('undoes the crowd’s bias: a crowd that quotes every price a logit high is read a logit lower', () => {
    const biased = { minutesLeft: 5, intercept: 1, slope: 1, noise: 0.01 }
    const seen = posteriorOfBook(ERROR_WEIGHTS, logits, narrow(sigmoid(1)), biased, 1)
    assert.ok((seen[2] as number) > 0.99)
  })

  it('reads a one-sided book as a bound: an up ask alone rules out the hypotheses priced above it', () => {
    const lone = bookEvidence(fresh(35, null), 5 * MINUTE)
    assert.ok(lone)
    const seen = posteriorOfBook(ERROR_WEIGHTS, logits, lone, honest(5), 1)
    // logit 0.35 ≈ −0.62: the hypotheses at 0 and above all but go, those below keep their ratio
    for (const i of [2, 3, 4])
      assert.ok((seen[i] as number) < 0.01 * (ERROR_WEIGHTS[i] as number), `${i}: ${seen[i]}`)
    const ratio = (w: readonly number[]) => (w[1] as number) / (w[0] as number)
    assert.ok(Math.abs(ratio(seen) / ratio(ERROR_WEIGHTS) - 1) < 0.01)
  })

  it('reads a book far from every hypothesis as saying little of which is true', () => {
    const far = posteriorOfBook(ERROR_WEIGHTS, logits, narrow(sigmoid(12)), honest(5), 1)
    const near = posteriorOfBook(ERROR_WEIGHTS, logits, narrow(sigmoid(2)), honest(5), 1)
    assert.ok((near[4] as number) > 0.9)
    assert.ok((far[4] as number) < 0.5, `${far[4]}`)
  })

  it('reads nothing at the edges, fully from 5 % in, and ramps between', () => {
    assert.equal(edgeShare(narrow(0.015)), 0)
    assert.equal(edgeShare(narrow(0.985)), 0)
    assert.equal(edgeShare(narrow(0.05)), 1)
    assert.equal(edgeShare(narrow(0.5)), 1)
    assert.ok(Math.abs(edgeShare(narrow(0.035)) - 0.5) < 1e-9)
    assert.ok(Math.abs(edgeShare(narrow(0.965)) - 0.5) < 1e-9)
  })

  it('gives the model alone exactly where the book counts for nothing', () => {
    const e = bookEvidence(around(0.6), 5 * MINUTE)
    assert.ok(e)
    assert.equal(
      readFromBook(0.42, 1e-4, () => 0.5, e, honest(5), 0),
      0.42,
    )
  })
})

describe('v2 reading the index from the book', () => {
  it('reads with a map for every minutes left in the shipped file, and checks a file’s maps', () => {
    assert.deepEqual(
      shippedMaps?.map((m) => m.minutesLeft),
      Array.from({ length: 14 }, (_, i) => i + 1),
    )
    assert.equal(checkModelV2Params(structuredClone(READING)).bookRead?.length, 14)
    assert.throws(() => checkModelV2Params({ ...POOLING, bookRead: [honest(1), honest(1)] }), /bookRead\[1\]/)
    assert.throws(() => checkModelV2Params({ ...POOLING, bookRead: [honest(3, 0)] }), /noise > 0/)
  })

  it('moves the model toward the index the book quotes from, and not where there is nothing to read', () => {
    for (const minute of [2, 7, 13]) {
      const plain = inputs(minute, 1.0002, null)
      const alone = settlementMeanProbability(plain, POOLING).probabilityUp
      // the crowd quotes from an index a doubt above (below) the engine's estimate
      const doubt = Math.sqrt(settlementPricing(plain, POOLING).basisVariance)
      const onIndex = (x: number) =>
        settlementMeanProbability(
          { ...plain, spotIsIndex: true, spotDollars: plain.spotDollars * Math.exp(x) },
          POOLING,
        ).probabilityUp
      for (const [x, sign] of [
        [2 * doubt, 1],
        [-2 * doubt, -1],
      ] as const) {
        const book = around(onIndex(x))
        const read = up(READING, inputs(minute, 1.0002, book))
        const pooled = up(POOLING, inputs(minute, 1.0002, book))
        assert.ok(
          sign * (read - pooled) > 0,
          `minute ${minute}, x ${x}: read ${read} against pooled ${pooled}`,
        )
      }
      // no book, the index itself as the spot, or a Polymarket reading: nothing read
      assert.equal(up(READING, plain), alone)
      const keyed = { ...inputs(minute, 1.0002, around(0.7)), spotIsIndex: true }
      assert.equal(up(READING, keyed), up(POOLING, keyed))
      const poly = { ...inputs(minute, 1.0002, around(0.7)), venue: 'polymarket' as const }
      assert.equal(up(READING, poly), up(POOLING, poly))
    }
  })

  it('reads a late crowd’s book at the spot of its measured lag, where the file says so', () => {
    assert.throws(() => checkModelV2Params({ ...READING, bookReadAtLag: 'yes' }), /bookReadAtLag/)
    // the read alone: a pool that keeps the model's P(up), since it pools the book as quoted
    const AT_SPOT: ModelV2Params = {
      ...READING,
      pool: READING.pool.map((b) => ({ ...b, intercept: 0, model: 1, mid: 0 })),
    }
    const LATE: ModelV2Params = { ...AT_SPOT, bookReadAtLag: true }
    for (const minute of [3, 12]) {
      const plain = inputs(minute, 1.0002, null)
      const onIndexAt = (spot: number) =>
        settlementMeanProbability({ ...plain, spotIsIndex: true, spotDollars: spot }, POOLING).probabilityUp
      const index = plain.spotDollars - settlementPricing(plain, POOLING).basisDollars
      // the crowd quotes 4 s late, from the index where the engine puts it, when the spot was 3 bp lower
      const then = plain.spotDollars * (1 - 3e-4)
      const late = around(onIndexAt(index * (1 - 3e-4)))
      const spotsBeforeBook = [plain.spotDollars, null, null, null, then]
      const lagged = { ...inputs(minute, 1.0002, late), spotsBeforeBook, crowdLagSeconds: 4 }
      const onTime = {
        ...inputs(minute, 1.0002, around(onIndexAt(index))),
        spotsBeforeBook: [plain.spotDollars],
      }
      // at the lag, the late book reads as an on-time one would; at the reading's spot, an index below
      const readOnTime = up(LATE, onTime)
      assert.ok(
        Math.abs(up(LATE, lagged) - readOnTime) < 0.25 * Math.abs(up(AT_SPOT, lagged) - readOnTime),
        `minute ${minute}: at the lag ${up(LATE, lagged)}, at the spot ${up(AT_SPOT, lagged)}, on time ${readOnTime}`,
      )
      // the spot at the lag unknown: read at the reading's spot
      const unmeasured = { ...lagged, crowdLagSeconds: 2 }
      assert.equal(up(LATE, unmeasured), up(AT_SPOT, unmeasured))
    }
  })

  it('reads a stale book less, and one quoted long before the time left all but not at all', () => {
    const noisy: ModelV2Params = {
      ...POOLING,
      bookRead: Array.from({ length: 14 }, (_, i) => honest(i + 1, 0.3)),
    }
    const gap = (ageMs: number) => {
      const input = inputs(5, 1.0002, around(0.8, ageMs))
      return Math.abs(up(noisy, input) - up(POOLING, input))
    }
    assert.ok(gap(0) > gap(3 * MINUTE))
    assert.ok(gap(3 * MINUTE) > gap(60 * MINUTE))
    assert.ok(gap(6_000 * MINUTE) < 0.01 * gap(0))
  })

  it('moves continuously as the book slides, widens and loses a side', () => {
    for (const [minute, ratio] of [
      [1, 0.9995],
      [2, 1],
      [5, 1.0003],
      [13, 0.9995],
    ] as const) {
      const paths = [
        tenths(50.5, 99.9).map((a) => fresh(a, a)),
        [...tenths(50.5, 100).map((d) => fresh(99.9, d)), fresh(99.9, null)],
        [
          ...tenths(50.5, 99.9).map((a) => fresh(a, Math.round((101 - a) * 10) / 10)),
          ...tenths(0.1, 1.1)
            .reverse()
            .map((down) => fresh(99.9, down)),
          fresh(100, 0.1),
          fresh(null, 0.1),
        ],
      ]
      for (const path of paths) {
        let prev: number | null = null
        for (const book of path) {
          const p = up(READING, inputs(minute, ratio, book))
          // the shipped pool's own bound on a 0.1 ¢ move (book-pool.test.ts)
          if (prev !== null)
            assert.ok(Math.abs(p - prev) <= 0.03, `minute ${minute}, S/K ${ratio}: ${prev} → ${p}`)
          prev = p
        }
      }
      // a side vanishing is the limit of its ask reaching 100 ¢: no step at all
      assert.equal(
        up(READING, inputs(minute, ratio, fresh(99.9, 100))),
        up(READING, inputs(minute, ratio, fresh(99.9, null))),
      )
      assert.equal(
        up(READING, inputs(minute, ratio, fresh(100, 0.1))),
        up(READING, inputs(minute, ratio, fresh(null, 0.1))),
      )
    }
  })
})
