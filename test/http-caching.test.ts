import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { createApiClient } from './support/api-client.ts'
import { newSeries, seedHistory, seedLiveContest } from './support/contest-fixtures.ts'
import { rawRequest } from './support/raw-request.ts'
import { createTestWorld, useTestWorld } from './support/test-world.ts'

const { world, api } = useTestWorld()

const auth = () => ({ authorization: `Bearer ${world.key}` })

describe('ETag and If-None-Match', () => {
  test('contest, active and history responses carry a strong ETag', async () => {
    const series = newSeries()
    const live = await seedLiveContest(world.store, series, 1)
    await seedHistory(world.store, series, 1)
    for (const path of [
      `/v1/contests/active?series=${series}`,
      `/v1/contests/${live.ticker}`,
      `/v1/contests?series=${series}`,
    ]) {
      const res = await api.get(path, world.key)
      assert.match(res.headers.get('etag') ?? '', /^"[^"]+"$/, path)
    }
  })

  test('answers a matching If-None-Match with 304 and no body', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 3)
    const path = `/v1/contests?series=${series}`
    const first = await api.get(path, world.key)
    const etag = first.headers.get('etag')!
    const second = await api.get(path, world.key, { 'if-none-match': etag })
    assert.equal(second.status, 304)
    assert.equal(second.text, '')
    assert.equal(second.headers.get('etag'), etag)
    const weak = await api.get(path, world.key, { 'if-none-match': `"nope", W/${etag}` })
    assert.equal(weak.status, 304)
    const star = await api.get(path, world.key, { 'if-none-match': '*' })
    assert.equal(star.status, 304)
  })

  test('answers a stale If-None-Match with 200 and the new body', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 1)
    const res = await api.get(`/v1/contests?series=${series}`, world.key, { 'if-none-match': '"stale"' })
    assert.equal(res.status, 200)
    assert.equal(res.json.contests.length, 1)
  })

  test('still counts a 304 against the rate allowance', async () => {
    const limited = await createTestWorld({ env: { RATE_LIMIT_BURST: '3', RATE_LIMIT_PER_SEC: '0.01' } })
    try {
      const client = createApiClient(limited)
      const series = newSeries()
      await seedHistory(limited.store, series, 1)
      const path = `/v1/contests?series=${series}`
      const etag = (await client.get(path, limited.key)).headers.get('etag')!
      assert.equal((await client.get(path, limited.key, { 'if-none-match': etag })).status, 304)
      assert.equal((await client.get(path, limited.key, { 'if-none-match': etag })).status, 304)
      assert.equal((await client.get(path, limited.key, { 'if-none-match': etag })).status, 429)
    } finally {
      await limited.close()
    }
  })

  test('keeps the ETag while the data is unchanged and changes it when the data changes', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 1)
    const path = `/v1/contests?series=${series}`
    const a = (await api.get(path, world.key)).headers.get('etag')
    const b = (await api.get(path, world.key)).headers.get('etag')
    assert.equal(a, b)
    await seedHistory(world.store, series, 1, Date.now() - 100 * 15 * 60_000)
    await world.sync()
    const c = (await api.get(path, world.key)).headers.get('etag')
    assert.notEqual(c, a)
  })
})

describe('compression', () => {
  test('sends br when accepted and the body is over 1 KiB', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 10)
    const url = `${world.baseUrl}/v1/contests?series=${series}`
    const res = await rawRequest(url, { headers: { ...auth(), 'accept-encoding': 'gzip, br' } })
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-encoding'], 'br')
    assert.match(String(res.headers.vary), /accept-encoding/i)
    const json = JSON.parse(brotliDecompressSync(res.body).toString())
    assert.equal(json.contests.length, 10)
  })

  test('sends gzip when only gzip is accepted', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 10)
    const url = `${world.baseUrl}/v1/contests?series=${series}`
    const res = await rawRequest(url, { headers: { ...auth(), 'accept-encoding': 'gzip' } })
    assert.equal(res.headers['content-encoding'], 'gzip')
    assert.equal(JSON.parse(gunzipSync(res.body).toString()).contests.length, 10)
  })

  test('sends the body as is when no encoding is accepted', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 10)
    const url = `${world.baseUrl}/v1/contests?series=${series}`
    const res = await rawRequest(url, { headers: { ...auth(), 'accept-encoding': 'identity' } })
    assert.equal(res.headers['content-encoding'], undefined)
    assert.equal(JSON.parse(res.body.toString()).contests.length, 10)
    const none = await rawRequest(url, { headers: auth() })
    assert.equal(none.headers['content-encoding'], undefined)
  })

  test('does not compress bodies of 1 KiB or less', async () => {
    const url = `${world.baseUrl}/v1/contests?series=${newSeries()}`
    const res = await rawRequest(url, { headers: { ...auth(), 'accept-encoding': 'gzip, br' } })
    assert.equal(res.status, 200)
    assert.ok(res.body.length <= 1024)
    assert.equal(res.headers['content-encoding'], undefined)
  })

  test('gives each encoding its own ETag, which revalidates that encoding only', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 10)
    const url = `${world.baseUrl}/v1/contests?series=${series}`
    const plain = await rawRequest(url, { headers: auth() })
    const br = await rawRequest(url, { headers: { ...auth(), 'accept-encoding': 'br' } })
    assert.notEqual(plain.headers.etag, br.headers.etag)
    const asked = async (acceptEncoding: string | null, ifNoneMatch: string) =>
      (
        await rawRequest(url, {
          headers: {
            ...auth(),
            ...(acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding }),
            'if-none-match': ifNoneMatch,
          },
        })
      ).status
    assert.equal(await asked('br', String(br.headers.etag)), 304)
    assert.equal(await asked(null, String(plain.headers.etag)), 304)
    // another encoding's tag names another representation (RFC 9110 §13.1.2)
    assert.equal(await asked('br', String(plain.headers.etag)), 200)
    assert.equal(await asked(null, String(br.headers.etag)), 200)
    assert.equal(await asked('br', `${plain.headers.etag}, ${br.headers.etag}`), 304)
    // a tag without its quotes is no entity-tag
    assert.equal(await asked(null, String(plain.headers.etag).replaceAll('"', '')), 200)
  })

  test('compresses the OpenAPI document', async () => {
    const res = await rawRequest(`${world.baseUrl}/v1/openapi.json`, {
      headers: { 'accept-encoding': 'gzip' },
    })
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-encoding'], 'gzip')
    assert.equal(JSON.parse(gunzipSync(res.body).toString()).openapi, '3.1.0')
  })
})

describe('HEAD', () => {
  test('HEAD on a contest answers the GET headers without a body', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 2)
    const url = `${world.baseUrl}/v1/contests?series=${series}`
    const head = await rawRequest(url, { method: 'HEAD', headers: auth() })
    const get = await rawRequest(url, { headers: auth() })
    assert.equal(head.status, 200)
    assert.equal(head.body.length, 0)
    assert.equal(head.headers.etag, get.headers.etag)
    assert.equal(head.headers['content-type'], get.headers['content-type'])
  })
})
