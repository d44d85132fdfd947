// `model:floor` reads the index from the book by Bayes' rule: a reader of its table relies on the
// read moving toward what the mid says, on a mid the map cannot read leaving the prior alone, and on
// the crowd's map not counting the index hypotheses' own spread as the crowd's noise.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  crowdMapsOf,
  fitCrowdMap,
  gridErrors,
  logitAt,
  type MapPoint,
  posteriorWeights,
  readableMid,
} from '../tools/book-index-read.ts'

const logit = (p: number) => Math.log(p / (1 - p))
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x))
const PRIOR = [0.25, 0.5, 0.25]

describe('the index read from the book', () => {
  it('leaves the prior as it is without a readable mid or a map', () => {
    const map = { intercept: 0, slope: 1, noise: 0.1 }
    assert.deepEqual(posteriorWeights(PRIOR, [-1, 0, 1], null, map), PRIOR)
    assert.deepEqual(posteriorWeights(PRIOR, [-1, 0, 1], 0.6, null), PRIOR)
  })

  it('moves weight to the hypothesis whose price the mid shows, the more the less noisy the crowd', () => {
    const logits = [-1, 0, 1]
    const mid = sigmoid(1)
    const loose = posteriorWeights(PRIOR, logits, mid, { intercept: 0, slope: 1, noise: 4 })
    const tight = posteriorWeights(PRIOR, logits, mid, { intercept: 0, slope: 1, noise: 0.25 })
    for (const w of [loose, tight]) assert.ok(Math.abs(w.reduce((a, b) => a + b, 0) - 1) < 1e-12)
    assert.ok((loose[2] as number) > 0.25 && (loose[0] as number) < 0.25)
    assert.ok((tight[2] as number) > (loose[2] as number))
    // the map's bias is undone: a crowd quoting 0.5 logit above the truth, seen at the same mid
    const biased = posteriorWeights(PRIOR, logits, mid, { intercept: 0.5, slope: 1, noise: 0.25 })
    assert.ok((biased[1] as number) > (tight[1] as number))
  })

  it('fits the crowd map and takes the hypotheses’ own spread out of its noise', () => {
    // mids from logit(mid) = 0.2 + 0.8·x ± 0.3, x the prior's centre; no spread among hypotheses
    const points: MapPoint[] = Array.from({ length: 200 }, (_, i) => {
      const x = -2 + (4 * i) / 199
      return { mid: sigmoid(0.2 + 0.8 * x + (i % 2 === 0 ? 0.3 : -0.3)), logits: [x, x, x], weights: PRIOR }
    })
    const map = fitCrowdMap(points)
    assert.ok(map)
    assert.ok(Math.abs(map.intercept - 0.2) < 0.01, `intercept ${map.intercept}`)
    assert.ok(Math.abs(map.slope - 0.8) < 0.01, `slope ${map.slope}`)
    assert.ok(Math.abs(map.noise - 0.09) < 0.005, `noise ${map.noise}`)
    // the same mids with hypotheses spread ±0.2 around x: 0.8²·0.02 of the residual is theirs
    const spread = points.map((p) => {
      const x = p.logits[1] as number
      return { ...p, logits: [x - 0.2, x, x + 0.2] }
    })
    const lessNoisy = fitCrowdMap(spread)
    assert.ok(lessNoisy)
    assert.ok(Math.abs(lessNoisy.noise - (0.09 - 0.64 * 0.02)) < 0.005, `noise ${lessNoisy.noise}`)
    assert.equal(fitCrowdMap(points.slice(0, 10)), null)
    // mids the prices explain exactly: no noise to weigh the book by, so no map
    const exact = points.map((p) => ({ ...p, mid: sigmoid(0.2 + 0.8 * (p.logits[1] as number)) }))
    assert.equal(fitCrowdMap(exact), null)
  })

  it('fits one map per minutes left, on readable mids away from certainty only', () => {
    const readings = Array.from({ length: 60 }, (_, i) => ({
      minutesLeft: i % 2 === 0 ? 1 : 2,
      mid: i % 3 === 0 ? null : sigmoid((i % 7) / 7 + (Math.floor(i / 2) % 2 === 0 ? 0.1 : -0.1)),
      x: (i % 7) / 7,
    }))
    const maps = crowdMapsOf(readings, PRIOR, (r) => [r.x, r.x, r.x])
    assert.deepEqual([...maps.keys()].sort(), [1, 2])
    const certain = readings.map((r) => ({ ...r, x: 6 }))
    assert.equal(crowdMapsOf(certain, PRIOR, (r) => [r.x, r.x, r.x]).size, 0)
  })

  it('reads only a two-sided book at most 10 ¢ wide with its mid inside 2–98 %', () => {
    const book = (up: number | null, down: number | null) => ({
      upAskCents: up,
      downAskCents: down,
      ageMs: 0,
    })
    assert.equal(readableMid(book(56, 46), 60_000), 0.55)
    assert.equal(readableMid(book(60, 52), 60_000), null)
    assert.equal(readableMid(book(56, null), 60_000), null)
    assert.equal(readableMid(book(2, 99), 60_000), null)
    assert.equal(readableMid(null, 60_000), null)
  })

  it('prices between the grid’s errors linearly in log-odds and flat past its ends', () => {
    const grid = { step: 1e-5, half: 2 }
    assert.deepEqual(gridErrors(grid), [-2e-5, -1e-5, 0, 1e-5, 2e-5])
    const priced = [0.2, 0.3, 0.5, 0.7, 0.8]
    assert.ok(Math.abs(logitAt(grid, priced, 0) - 0) < 1e-12)
    assert.ok(Math.abs(logitAt(grid, priced, 0.5e-5) - logit(0.7) / 2) < 1e-12)
    assert.ok(Math.abs(logitAt(grid, priced, 9e-5) - logit(0.8)) < 1e-12)
    assert.ok(Math.abs(logitAt(grid, priced, -9e-5) - logit(0.2)) < 1e-12)
  })
})
