import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { maskKeys } from './api-key.ts'

describe('API key masking', () => {
  it('masks anything shaped like an API key in a URL', () => {
    assert.equal(
      maskKeys('/v1/contests?key=cs_nFhD9Vrf4A0akUGRU0PZg9tKA0w&series=KXBTC15M'),
      '/v1/contests?key=cs_[redacted]&series=KXBTC15M',
    )
    assert.equal(maskKeys('/v1/contests/cs_AAAAAAAAAAAAAAAAAAAAAAAAAAAA'), '/v1/contests/cs_[redacted]')
  })

  it('leaves ordinary URLs alone', () => {
    const url = '/v1/contests?series=KXBTC15M&since=2026-11-22T12:00:00Z&limit=5'
    assert.equal(maskKeys(url), url)
    assert.equal(maskKeys('/v1/contests/KXBTC15M-26NOV221415-15'), '/v1/contests/KXBTC15M-26NOV221415-15')
  })
})
