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
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9]{12}$/, 'UUID-shaped')
  }
})

test('fresh ids count up by one, across thousands', () => {
  const tails = Array.from({ length: 2500 }, () => Number(requestIdFrom(undefined).slice(-12)))
  for (let i = 1; i < tails.length; i++) assert.equal(tails[i], tails[i - 1]! + 1, `after ${tails[i - 1]}`)
})

test('fresh ids never repeat within a process', () => {
  const ids = new Set(Array.from({ length: 10_000 }, () => requestIdFrom(undefined)))
  assert.equal(ids.size, 10_000)
})
