// The browser pages: a home page at /, the API reference and the dashboard, each asset compressed
// once and revalidated by its ETag; /docs counts against the rate limit like every endpoint.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { brotliDecompressSync } from 'node:zlib'
import { loadWebAssets } from '../src/main/web-assets.ts'
import { rawRequest } from './support/raw-request.ts'
import { createTestWorld, type TestWorld } from './support/test-world.ts'

const BUNDLE = '/docs/vendor/swagger-ui-bundle.js'

describe('pages', () => {
  const assets = loadWebAssets()
  let world: TestWorld
  before(async () => {
    world = await createTestWorld({ webAssets: assets })
  })
  after(() => world.close())

  test('/ is a small page linking the dashboard, the API reference and the OpenAPI document', async () => {
    const res = await fetch(`${world.baseUrl}/`)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type')!, /^text\/html/)
    const html = await res.text()
    for (const link of ['/dashboard', '/docs', '/v1/openapi.json'])
      assert.ok(html.includes(`href="${link}"`), link)
  })

  test('/docs links the OpenAPI document it renders, for a client generator or a download', async () => {
    const html = await (await fetch(`${world.baseUrl}/docs`)).text()
    assert.ok(html.includes('href="/v1/openapi.json"'), html)
  })

  test("the docs bundle is compressed once: later answers send the kept bytes, and a client's copy revalidates to 304", async () => {
    const asset = assets.get(BUNDLE)!
    const first = await rawRequest(`${world.baseUrl}${BUNDLE}`, { headers: { 'accept-encoding': 'br' } })
    assert.equal(first.status, 200)
    assert.equal(first.headers['content-encoding'], 'br')
    assert.deepEqual(brotliDecompressSync(first.body), asset.body)
    const held = asset.size
    const second = await rawRequest(`${world.baseUrl}${BUNDLE}`, { headers: { 'accept-encoding': 'br' } })
    assert.deepEqual(second.body, first.body)
    assert.equal(asset.size, held, 'no second compression was kept')
    const etag = String(second.headers.etag)
    assert.match(etag, /^"[0-9a-f]{32}-br"$/)
    const revalidated = await rawRequest(`${world.baseUrl}${BUNDLE}`, {
      headers: { 'accept-encoding': 'br', 'if-none-match': etag },
    })
    assert.equal(revalidated.status, 304)
    assert.equal(revalidated.body.length, 0)
  })
})

describe('pages and the rate limit', () => {
  let world: TestWorld
  before(async () => {
    world = await createTestWorld({
      webAssets: loadWebAssets(),
      env: { RATE_LIMIT_BURST: '3', TRUST_PROXY: '127.0.0.1' },
    })
  })
  after(() => world.close())

  test("every page counts like every endpoint; the dashboard's static modules do not", async () => {
    for (let i = 0; i < 6; i++) {
      assert.equal((await fetch(`${world.baseUrl}/dashboard/app.ts`)).status, 200)
      assert.equal((await fetch(`${world.baseUrl}/dashboard/dashboard.css`)).status, 200)
    }
    // each page from a client of its own
    for (const [i, page] of ['/', '/dashboard', '/docs'].entries()) {
      const from = { 'x-forwarded-for': `198.51.100.${i + 1}` }
      const statuses = []
      for (let n = 0; n < 4; n++)
        statuses.push((await fetch(`${world.baseUrl}${page}`, { headers: from })).status)
      assert.deepEqual(statuses, [200, 200, 200, 429], page)
    }
  })
})
