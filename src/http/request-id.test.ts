import assert from 'node:assert/strict'
import { test } from 'node:test'
import { requestIdFrom } from './request-id.ts'

test("a client's sane X-Request-Id is echoed as sent", () => {
  assert.equal(requestIdFrom('trace-42.a:b_c'), 'trace-42.a:b_c')
})

test('no X-Request-Id, or one that is not a sane token, gets a fresh id of our own', () => {
  for (const given of [undefined, '', 'a"b', 'x'.repeat(129), 'with space', 'é']) {
    const id = requestIdFrom(given)
    assert.notEqual(id, given)
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'UUID-shaped')
  }
})

test('a value shaped like an API key is never echoed', () => {
  const key = `cs_${'A1b2-C3d4_'.repeat(3)}`
  for (const given of [key, `trace:${key}`]) {
    const id = requestIdFrom(given)
    assert.ok(!id.includes('cs_'), id)
  }
  assert.equal(requestIdFrom('docs_v2'), 'docs_v2', 'a short cs_-free token is still echoed')
})

test('fresh ids tell nothing of how many came before: their tails are not a count', () => {
  const tails = Array.from({ length: 5000 }, () => Number.parseInt(requestIdFrom(undefined).slice(-12), 16))
  const steps = tails.slice(1).map((t, i) => t - tails[i]!)
  // a sequence steps by a constant; 48 random bits step by anything, half the time downwards
  assert.ok(new Set(steps).size > 4900)
  const down = steps.filter((d) => d < 0).length / steps.length
  assert.ok(down > 0.45 && down < 0.55, `${down}`)
})

test('fresh ids never repeat within a process', () => {
  const ids = new Set(Array.from({ length: 10_000 }, () => requestIdFrom(undefined)))
  assert.equal(ids.size, 10_000)
})
