// Stage R of `fit:model` (--book-read): the crowd's map is recovered from observables alone — the
// mids and the model's own prices — on readings whose crowd quotes from an index the engine sees only
// through its doubt, and the read it makes moves a reading toward what its book says.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { normalCdf } from '../src/domain/model.ts'
import { logitOf } from '../src/model/book-pool.ts'
import { V2_PARAMS } from '../src/model/models.ts'
import type { ModelV2Params } from '../src/model/params.ts'
import { fitBookRead, fitCrowdMaps, readOf } from '../tools/fit/book-read-stage.ts'
import { modelProbability, type PricedObservation } from '../tools/fit/stages.ts'
import { normals } from './support/normals.ts'

/** Seeded uniforms in (0, 1): a normal draw through its CDF. */
function uniforms(seed: number): () => number {
  const z = normals(seed)
  return () => normalCdf(z())
}

// the engine doubts its index by 2 bp; the crowd knows where it is
const PARAMS: ModelV2Params = { ...V2_PARAMS, basis: { ...V2_PARAMS.basis, variance: 4e-8 } }
const CROWD = { intercept: 0.1, slope: 0.8, noise: 0.04 }

/**
 * Readings at `left` minutes, centred within ±6 bp of the strike: the index is off the engine's
 * estimate by its doubt, the crowd quotes a cent-wide book at its map of the true index's price.
 */
function readings(
  n: number,
  left: number,
  seed: number,
  lagMove = 0,
): { obs: PricedObservation[]; error: number[] } {
  const z = normals(seed)
  const u = uniforms(seed + 1)
  const obs: PricedObservation[] = []
  const error: number[] = []
  for (let i = 0; i < n; i++) {
    const centre = (u() - 0.5) * 12e-4
    const v = left * 25e-8
    const x = 2e-4 * z()
    const truth = modelProbability({ centre: centre - x, v }, 0, PARAMS, false)
    // a crowd that quotes late prices the index at the spot of its lag, `lagMove` sd away from now
    const centreAtLag = lagMove > 0 ? centre + lagMove * z() : centre
    const seen = lagMove > 0 ? modelProbability({ centre: centreAtLag - x, v }, 0, PARAMS, false) : truth
    const quote = 1 / (1 + Math.exp(-(CROWD.intercept + CROWD.slope * logitOf(seen) + 0.2 * z())))
    const mid = Math.min(0.9, Math.max(0.1, quote))
    obs.push({
      centre,
      ...(lagMove > 0 ? { centreAtLag } : {}),
      v,
      book: { lower: mid - 0.005, upper: mid + 0.005, spread: 0.01, staleShare: 0 },
      y: u() < truth ? 1 : 0,
      left,
    })
    error.push(x)
  }
  return { obs, error }
}

describe('stage R: the crowd’s map and the read', () => {
  it('recovers the crowd’s map from the mids and the model’s prices, its noise net of the doubt', () => {
    const { obs } = readings(4_000, 5, 3)
    const [map] = fitCrowdMaps(obs, PARAMS)
    assert.ok(map)
    assert.equal(map.minutesLeft, 5)
    assert.ok(Math.abs(map.slope - CROWD.slope) < 0.1, `slope ${map.slope}`)
    assert.ok(Math.abs(map.intercept - CROWD.intercept) < 0.05, `intercept ${map.intercept}`)
    assert.ok(Math.abs(map.noise - CROWD.noise) < 0.02, `noise ${map.noise}`)
  })

  it('reads the index where the book puts it: the read is nearer the truth than the model alone', () => {
    const train = readings(4_000, 5, 3)
    const { bookRead } = fitBookRead(train.obs, PARAMS, () => {})
    const test = readings(2_000, 5, 11)
    let alone = 0
    let read = 0
    test.obs.forEach((o, i) => {
      const truth = modelProbability(
        { centre: o.centre - (test.error[i] as number), v: o.v },
        0,
        PARAMS,
        false,
      )
      const a = modelProbability({ centre: o.centre, v: o.v }, PARAMS.basis.variance, PARAMS, false)
      alone += (a - truth) ** 2
      read += (readOf(o, PARAMS, bookRead) - truth) ** 2
    })
    assert.ok(read < 0.8 * alone, `squared error read ${read} against alone ${alone}`)
  })

  it('reads a late crowd’s book at the spot it quoted from: its map as sharp as an on-time crowd’s, its read nearer the truth', () => {
    // the spot moves 3 bp (sd) over the crowd's lag: more than the engine's doubt about its index
    const train = readings(4_000, 5, 3, 3e-4)
    const [atSpot] = fitCrowdMaps(train.obs, PARAMS)
    const [atLag] = fitCrowdMaps(train.obs, PARAMS, true)
    assert.ok(atSpot && atLag)
    assert.ok(Math.abs(atLag.noise - CROWD.noise) < 0.02, `noise at the lag ${atLag.noise}`)
    assert.ok(
      atSpot.noise > 2 * atLag.noise,
      `at the reading's spot ${atSpot.noise}, at the lag ${atLag.noise}`,
    )
    const fitted = (atLagToo: boolean) => fitBookRead(train.obs, PARAMS, () => {}, atLagToo).bookRead
    const test = readings(2_000, 5, 11, 3e-4)
    const squared = (atLagToo: boolean) => {
      const maps = fitted(atLagToo)
      return test.obs.reduce((sum, o, i) => {
        const truth = modelProbability(
          { centre: o.centre - (test.error[i] as number), v: o.v },
          0,
          PARAMS,
          false,
        )
        return sum + (readOf(o, PARAMS, maps, atLagToo) - truth) ** 2
      }, 0)
    }
    assert.ok(
      squared(true) < 0.8 * squared(false),
      `at the lag ${squared(true)}, at the reading's spot ${squared(false)}`,
    )
  })

  it('makes no map where no book is read whole', () => {
    const { obs } = readings(500, 5, 5)
    const oneSided = obs.map((o) => ({ ...o, book: o.book && { ...o.book, lower: 0 } }))
    assert.deepEqual(fitCrowdMaps(oneSided, PARAMS), [])
  })
})
