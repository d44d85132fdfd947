// Tests of the REST client against a scripted loopback server; sleeps are recorded, not waited.
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createKalshiClient, type KalshiClientOptions } from './kalshi-client.ts'

type Script = (req: IncomingMessage, res: ServerResponse) => void
const script: Script[] = []
const seen: string[] = []
let baseUrl = ''
const server = createServer((req, res) => {
  seen.push(req.url ?? '')
  const next = script.shift()
  if (next) next(req, res)
  else res.writeHead(200, { 'content-type': 'application/json' }).end('{"fallback":true}')
})
const reply =
  (status: number, body: string): Script =>
  (_req, res) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(body)

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/trade-api/v2/`
})
after(() => {
  server.closeAllConnections()
  server.close()
})

function world(overrides: Partial<KalshiClientOptions> = {}) {
  script.length = 0
  seen.length = 0
  const slept: number[] = []
  const requests: Array<[string, string]> = []
  const retries: string[] = []
  const debug: unknown[] = []
  const client = createKalshiClient({
    baseUrl,
    clock: { now: () => Date.now() },
    logger: { info() {}, warn() {}, error() {}, debug: (o) => debug.push(o) },
    telemetry: { request: (e, s) => requests.push([e, s]), retry: (e) => retries.push(e) },
    maxRequestsPerSec: 1_000,
    random: () => 0.5,
    sleep: async (ms) => {
      slept.push(ms)
    },
    ...overrides,
  })
  return { client, slept, requests, retries, debug }
}

describe('createKalshiClient', () => {
  it('builds the URL from the base, the path and the query, and parses the JSON body', async () => {
    const w = world()
    script.push(reply(200, '{"markets":[],"cursor":""}'))
    const r = await w.client.get('markets', '/markets', { series_ticker: 'KXBTC15M', status: 'open' })
    assert.deepEqual(r, { ok: true, body: { markets: [], cursor: '' } })
    assert.deepEqual(seen, ['/trade-api/v2/markets?series_ticker=KXBTC15M&status=open'])
    assert.deepEqual(w.requests, [['markets', '200']])
  })

  it('retries 429 and 5xx with growing backoff, then returns the body', async () => {
    // a clock moved only by the client's sleeps, so the host-wide pause after the 429 shows as itself
    let now = Date.UTC(2026, 2, 2, 17)
    const slept: number[] = []
    const w = world({
      clock: { now: () => now },
      sleep: async (ms) => {
        slept.push(ms)
        now += ms
      },
    })
    script.push(reply(429, '{"error":"too many requests"}'), reply(503, 'upstream'), reply(500, '{}'))
    script.push(reply(200, '{"market":{}}'))
    const r = await w.client.get('market', '/markets/T-1')
    assert.deepEqual(r, { ok: true, body: { market: {} } })
    // the retry's own 125 ms, then the rest of the host's pause after the 429 (187 ms in all: every
    // request to the host waits it out); a 5xx or two do not pause the host
    assert.deepEqual(slept, [125, 62, 250, 500])
    assert.deepEqual(
      w.requests.map(([, s]) => s),
      ['429', '503', '500', '200'],
    )
    assert.deepEqual(w.retries, ['market', 'market', 'market'])
  })

  it('gives up after the last attempt and reports the venue error body', async () => {
    const w = world({ maxAttempts: 2 })
    const body = '{"code":"internal","message":"boom","details":"try later"}'
    script.push(reply(500, body), reply(500, body), reply(200, '{}'))
    const r = await w.client.get('markets', '/markets')
    assert.deepEqual(r, {
      ok: false,
      status: '500',
      code: 'internal',
      message: 'boom: try later',
      body: JSON.parse(body),
    })
    assert.equal(seen.length, 2)
    assert.deepEqual(w.retries, ['markets'])
  })

  it('does not retry a 404 and keeps its code', async () => {
    const w = world()
    script.push(reply(404, '{"code":"not_found","message":"market not found"}'))
    const r = await w.client.get('market', '/markets/NOPE')
    assert.deepEqual(r, {
      ok: false,
      status: '404',
      code: 'not_found',
      message: 'market not found',
      body: { code: 'not_found', message: 'market not found' },
    })
    assert.equal(seen.length, 1)
    assert.deepEqual(w.slept, [])
  })

  it('treats a 2xx that is not JSON as a failure, without retrying', async () => {
    const w = world()
    script.push(reply(200, '<html>maintenance</html>'))
    const r = await w.client.get('orderbook', '/markets/T-1/orderbook')
    assert.equal(r.ok, false)
    assert.equal(!r.ok && r.status, 'invalid_json')
    assert.equal(seen.length, 1)
  })

  // the bound fails the test, rather than hanging it, if the call waits for the held answer
  it('abandons an attempt past the timeout and retries it', { timeout: 5_000 }, async () => {
    const w = world({ timeoutMs: 100 })
    // the first attempt's answer is held back until the call has returned: only the timeout can end it
    let answerHeldBack = (): void => undefined
    script.push((_req, res) => {
      answerHeldBack = () => res.destroyed || res.end('{"late":true}')
    })
    script.push(reply(200, '{"ok":1}'))
    const r = await w.client.get('markets', '/markets')
    answerHeldBack()
    assert.deepEqual(r, { ok: true, body: { ok: 1 } })
    assert.equal(seen.length, 2)
    assert.deepEqual(
      w.requests.map(([, s]) => s),
      ['timeout', '200'],
    )
  })

  it('reports a refused connection as an error after its retries', async () => {
    const dead = createServer()
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve))
    const port = (dead.address() as AddressInfo).port
    await new Promise((resolve) => dead.close(resolve))
    const w = world({ baseUrl: `http://127.0.0.1:${port}/trade-api/v2`, maxAttempts: 3 })
    const r = await w.client.get('markets', '/markets')
    assert.equal(!r.ok && r.status, 'error')
    assert.deepEqual(
      w.requests.map(([, s]) => s),
      ['error', 'error', 'error'],
    )
    // the backoff's two waits; refusals come back within the same millisecond, so the 1 ms pacing
    // slot may add a wait of its own
    assert.deepEqual(
      w.slept.filter((ms) => ms > 1),
      [125, 250],
    )
  })

  it('stops at once, without telemetry, when the caller aborts', async () => {
    const controller = new AbortController()
    const w = world({
      sleep: async () => {
        controller.abort()
        throw new Error('aborted')
      },
    })
    script.push(reply(503, ''), reply(200, '{}'))
    const r = await w.client.get('markets', '/markets', {}, { signal: controller.signal })
    assert.deepEqual(r, { ok: false, status: 'aborted', code: null, message: 'aborted' })
    assert.equal(seen.length, 1)
  })

  it('signs each attempt when a signer is given, and sends no signature otherwise', async () => {
    const signedPaths: string[] = []
    const w = world({
      signer: (method, url, now) => {
        signedPaths.push(`${method} ${url.pathname}`)
        return {
          'KALSHI-ACCESS-KEY': 'k',
          'KALSHI-ACCESS-TIMESTAMP': String(now),
          'KALSHI-ACCESS-SIGNATURE': 's',
        }
      },
    })
    let headers: IncomingMessage['headers'] = {}
    script.push(reply(500, ''), (req, res) => {
      headers = req.headers
      res.end('{}')
    })
    await w.client.get('markets', '/markets', { limit: '5' })
    assert.deepEqual(signedPaths, ['GET /trade-api/v2/markets', 'GET /trade-api/v2/markets'])
    assert.equal(headers['kalshi-access-key'], 'k')

    const plain = world()
    script.push((req, res) => {
      headers = req.headers
      res.end('{}')
    })
    await plain.client.get('markets', '/markets')
    assert.equal(headers['kalshi-access-key'], undefined)
    assert.equal(headers['kalshi-access-signature'], undefined)
  })
})
