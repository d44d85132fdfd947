import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { chooseEncoding, createRepresentation, ifNoneMatchHits } from './representation.ts'

describe('chooseEncoding', () => {
  test('prefers br, falls back to gzip, and honours q-values', () => {
    assert.equal(chooseEncoding('gzip, deflate, br'), 'br')
    assert.equal(chooseEncoding('gzip'), 'gzip')
    assert.equal(chooseEncoding('br;q=0.5, gzip'), 'gzip')
    assert.equal(chooseEncoding('br;q=0, gzip;q=0'), null)
    assert.equal(chooseEncoding('*'), 'br')
    assert.equal(chooseEncoding('*, br;q=0'), 'gzip')
    assert.equal(chooseEncoding('identity'), null)
    assert.equal(chooseEncoding(''), null)
    assert.equal(chooseEncoding(undefined), null)
  })
})

describe('ifNoneMatchHits', () => {
  const etag = '"0123abcd"'
  test("matches the variant's own tag, its weak form, within a list, and *", () => {
    assert.ok(ifNoneMatchHits('"0123abcd"', etag, null))
    assert.ok(ifNoneMatchHits('W/"0123abcd"', etag, null))
    assert.ok(ifNoneMatchHits('"0123abcd-br"', etag, 'br'))
    assert.ok(ifNoneMatchHits('"x", "0123abcd-gzip"', etag, 'gzip'))
    assert.ok(ifNoneMatchHits('"0123abcd", "0123abcd-gzip"', etag, null))
    assert.ok(ifNoneMatchHits('*', etag, 'gzip'))
  })

  test("does not match another variant's tag, an unquoted tag, other tags or an absent header", () => {
    assert.ok(!ifNoneMatchHits('"0123abcd-gzip"', etag, null))
    assert.ok(!ifNoneMatchHits('"0123abcd-br"', etag, 'gzip'))
    assert.ok(!ifNoneMatchHits('"0123abcd"', etag, 'gzip'))
    assert.ok(!ifNoneMatchHits('0123abcd', etag, null))
    assert.ok(!ifNoneMatchHits('"0123abce"', etag, null))
    assert.ok(!ifNoneMatchHits(undefined, etag, null))
    assert.ok(!ifNoneMatchHits('', etag, null))
  })
})

describe('createRepresentation', () => {
  test('derives a strong ETag from the bytes and compresses each variant once', () => {
    const json = JSON.stringify({ contests: Array.from({ length: 100 }, (_, i) => ({ i })) })
    const a = createRepresentation(json, 'application/json')
    const b = createRepresentation(json, 'application/json')
    assert.equal(a.etag, b.etag)
    assert.notEqual(a.etag, createRepresentation(`${json} `, 'application/json').etag)
    const br = a.variant('br')
    assert.equal(a.variant('br'), br)
    assert.equal(brotliDecompressSync(br).toString(), json)
    assert.equal(gunzipSync(a.variant('gzip')).toString(), json)
  })
})
