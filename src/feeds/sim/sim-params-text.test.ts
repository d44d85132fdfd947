// Tests of SIM_PARAMS's text forms: a preset's name, name=value pairs, JSON, and one-line refusals.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SIM_PARAMS, type SimParams } from './sim-params.ts'
import { CROWD_PRESETS, parseSimParams } from './sim-params-text.ts'

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
    ] as const) {
      const p = parseSimParams(text)
      assert.equal(typeof p, 'string', text)
      assert.match(p as string, problem)
      assert.ok(!(p as string).includes('\n'))
    }
  })
})
