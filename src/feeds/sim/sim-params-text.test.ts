// Tests of SIM_PARAMS's text forms: a preset's name, name=value pairs, JSON, and one-line refusals.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createSimPolymarket } from './polymarket-world.ts'
import { SIM_PARAMS, type SimParams } from './sim-params.ts'
import { CROWD_PRESETS, parseSimParams } from './sim-params-text.ts'
import { createSimWorld } from './sim-world.ts'

const ok = (text: string): SimParams => {
  const p = parseSimParams(text)
  assert.ok(typeof p !== 'string', String(p))
  return p
}

describe('SIM_PARAMS', () => {
  it('is the default, a past-volatility crowd, when empty', () => {
    assert.equal(ok(''), SIM_PARAMS)
    assert.equal(SIM_PARAMS.crowd.volEstimator, 'ewma')
  })

  it('names a preset over the default crowd', () => {
    for (const name of [
      'ewma',
      'informed',
      'ewma-late',
      'shrink',
      'floor',
      'drift',
      'wide-stale',
      'one-sided',
    ])
      assert.ok(CROWD_PRESETS[name], name)
    const informed = ok('informed')
    assert.equal(informed.crowd.volEstimator, 'true')
    assert.equal(informed.crowd.lagSeconds, 0)
    assert.equal(informed.index, SIM_PARAMS.index)
    assert.deepEqual(ok('wide-stale').crowd.spreadTicks, [1, 10])
  })

  it('takes name=value pairs, with a preset, numbers, words and ranges', () => {
    const p = ok('preset=shrink, crowd.lagSeconds=5,crowd.spreadTicks=2..8,crowd.volEstimator=true')
    assert.equal(p.crowd.bias, 'shrink')
    assert.equal(p.crowd.lagSeconds, 5)
    assert.deepEqual(p.crowd.spreadTicks, [2, 8])
    assert.equal(p.crowd.volEstimator, 'true')
    assert.equal(ok('index.studentNu=4').index.studentNu, 4)
  })

  it('takes JSON', () => {
    const p = ok('{"preset":"floor","crowd":{"floor":0.05},"polymarket":{"twapLookbackSeconds":30}}')
    assert.equal(p.crowd.bias, 'floor')
    assert.equal(p.crowd.floor, 0.05)
    assert.equal(p.polymarket.twapLookbackSeconds, 30)
  })

  it('names the crowd on Polymarket too, over that venue’s own settings but only where it names one', () => {
    const own = SIM_PARAMS.polymarket.crowd
    assert.equal(ok('').polymarket.crowd, own)
    const late = ok('ewma-late').polymarket.crowd
    assert.equal(late.lagSeconds, 10)
    assert.equal(late.ewmaHalfLifeMinutes, 240)
    assert.equal(late.gamma, own.gamma, 'a setting the preset leaves is Polymarket’s own')
    assert.equal(ok('drift').polymarket.crowd.gamma, 1)
    const shrink = ok('shrink').polymarket.crowd
    assert.equal(shrink.bias, 'shrink')
    for (const [key, value] of Object.entries(own))
      assert.equal(shrink[key as keyof typeof own], value, `shrink names no ${key}: Polymarket's own holds`)
    const p = ok('preset=ewma-late,crowd.lagSeconds=20,polymarket.twapLookbackSeconds=30')
    assert.equal(p.polymarket.crowd.lagSeconds, 20)
    assert.equal(p.polymarket.twapLookbackSeconds, 30)
  })

  it('quotes a Polymarket book from the crowd SIM_PARAMS names', () => {
    // the same seed, the default crowd and one 60 s late: the books differ somewhere in an hour
    const books = (params: SimParams) => {
      const pm = createSimPolymarket(createSimWorld(7, params))
      const w = pm.window(Date.parse('2026-10-01T12:00:00Z'))
      return Array.from({ length: 60 }, (_, i) => JSON.stringify(pm.book(w, w.opensAt + 5_000 + i * 14_000)))
    }
    const plain = books(SIM_PARAMS)
    assert.deepEqual(books(ok('')), plain)
    assert.notDeepEqual(books(ok('crowd.lagSeconds=60')), plain)
  })

  it('takes the signed settings below 0, and ranges of one value', () => {
    const p = parseSimParams('crowd.delta=-0.04,basis.phi=-0.3,crowd.spreadTicks=2..2')
    assert.equal(typeof p, 'object', String(p))
    assert.equal((p as SimParams).crowd.delta, -0.04)
    assert.deepEqual((p as SimParams).crowd.spreadTicks, [2, 2])
  })

  it('refuses unknown names and wrong kinds in one line', () => {
    for (const [text, problem] of [
      ['nonesuch', /no preset "nonesuch"/],
      ['crowd.gama=1', /no setting "crowd.gama"/],
      ['crowdy.gamma=1', /no group "crowdy"/],
      ['crowd.gamma=high', /crowd.gamma must be a number/],
      ['crowd.bias=sideways', /must be one of logit, shrink, floor, drift/],
      ['crowd.spreadTicks=3', /must be a range/],
      ['{"crowd":', /not valid JSON/],
      ['gamma', /no preset/],
      ['crowd=1', /not group.key/],
      // values of the right kind that describe no sandbox
      ['crowd.lagSeconds=-5', /crowd.lagSeconds must not be negative/],
      ['crowd.spreadTicks=10..1', /crowd.spreadTicks must be a range lo..hi with lo ≤ hi/],
      ['crowd.spreadTicks=0..3', /crowd.spreadTicks must start at 1 or more/],
      ['sources.staleSeconds=-20..240', /sources.staleSeconds must not be negative/],
      ['crowd.staleQuoteRate=1.5', /crowd.staleQuoteRate must be a chance from 0 to 1/],
      ['crowd.floor=0.5', /crowd.floor must be from 0 to under 0.5/],
      ['index.studentNu=2', /index.studentNu must be above 2/],
      ['{"basis":{"phi":1}}', /basis.phi must be inside/],
    ] as const) {
      const p = parseSimParams(text)
      assert.equal(typeof p, 'string', text)
      assert.match(p as string, problem)
      assert.ok(!(p as string).includes('\n'))
    }
  })
})
