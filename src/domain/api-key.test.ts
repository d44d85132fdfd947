import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { containsKey, maskKeys } from './api-key.ts'

describe('API key masking', () => {
  it('masks anything shaped like an API key in a URL', () => {
    assert.equal(
      maskKeys('/v1/contests?key=cs_nFhD9Vrf4A0akUGRU0PZg9tKA0w&series=KXBTC15M'),
      '/v1/contests?key=cs_[redacted]&series=KXBTC15M',
    )
    assert.equal(maskKeys('/v1/contests/cs_AAAAAAAAAAAAAAAAAAAAAAAAAAAA'), '/v1/contests/cs_[redacted]')
  })

  it('masks a key however the URL writes it: escaped characters, a capitalised prefix', () => {
    const tail = 'nFhD9Vrf4A0akUGRU0PZg9tKA0w'
    for (const written of [
      `cs%5F${tail}`,
      `cs%5f${tail}`,
      `%63s_${tail}`,
      `cs_%6EFhD9Vrf4A0akUGRU0PZg9tKA0w`,
      `cs_nFhD9Vrf4A0akUGRU0PZg9tKA0%77`,
      `CS_${tail}`,
    ]) {
      assert.equal(
        maskKeys(`/v1/contests?key=${written}&series=KXBTC15M`),
        '/v1/contests?key=cs_[redacted]&series=KXBTC15M',
      )
    }
  })

  it('never lets a key-shaped request id through, whatever its capitals', () => {
    assert.ok(containsKey('cs_nFhD9Vrf4A0akUGRU0PZg9tKA0w'))
    assert.ok(containsKey('CS_nFhD9Vrf4A0akUGRU0PZg9tKA0w'))
    assert.ok(!containsKey('KXBTC15M-26NOV221415-15'))
  })

  it('leaves ordinary URLs alone', () => {
    const url = '/v1/contests?series=KXBTC15M&since=2026-11-22T12:00:00Z&limit=5'
    assert.equal(maskKeys(url), url)
    assert.equal(maskKeys('/v1/contests/KXBTC15M-26NOV221415-15'), '/v1/contests/KXBTC15M-26NOV221415-15')
    const escaped = '/v1/contests?series=KX%20BTC&since=2026-11-22T12%3A00%3A00Z'
    assert.equal(maskKeys(escaped), escaped)
  })
})
