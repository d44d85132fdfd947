// The venue JSON client against a loopback server: a 429's Retry-After is waited (on the test's
// sleep, not the wall), at least as long as it says, within a bound; an unreadable header falls back
// to the backoff.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createJsonClient, RETRY_AFTER_CAP_MS, retryAfterOf } from './json-client.ts'

const silent = { debug() {}, info() {}, warn() {}, error() {} } as never

describe('retryAfterOf', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.UTC(2026, 5, 10, 12)
    assert.equal(retryAfterOf('3', now), 3_000)
    assert.equal(retryAfterOf(new Date(now + 5_000).toUTCString(), now), 5_000)
    assert.equal(retryAfterOf(null, now), null)
    assert.equal(retryAfterOf('soon', now), null)
  })
})

describe('createJsonClient and Retry-After', () => {
  const answers: { status: number; retryAfter?: string }[] = []
  const server = createServer((_req, res) => {
    const a = answers.shift() ?? { status: 200 }
    res.writeHead(a.status, {
      'content-type': 'application/json',
      ...(a.retryAfter ? { 'retry-after': a.retryAfter } : {}),
    })
    res.end(a.status === 200 ? '{"ok":true}' : '{"error":"too many requests"}')
  })
  let base = ''
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(() => server.close())

  // the test's clock, moved only by the client's sleeps
  let now = Date.UTC(2026, 5, 10, 12)
  const client = (slept: number[]) =>
    createJsonClient({
      baseUrl: base,
      venue: 'test',
      clock: { now: () => now },
      logger: silent,
      maxRequestsPerSec: 1_000,
      backoff: { baseMs: 10, capMs: 20 },
      random: () => 0.5,
      sleep: async (ms) => {
        if (ms > 0) slept.push(ms)
        now += ms
      },
    })

  it('waits what a 429 asks before trying again, capped', async () => {
    const slept: number[] = []
    answers.push({ status: 429, retryAfter: '7' }, { status: 429, retryAfter: '3600' })
    const reply = await client(slept).get('x', '/x')
    assert.deepEqual(reply, { ok: true, body: { ok: true } })
    assert.deepEqual(slept, [7_000, RETRY_AFTER_CAP_MS])
  })

  it('backs off on its own when the 429 says nothing usable', async () => {
    const slept: number[] = []
    answers.push({ status: 429, retryAfter: 'later' }, { status: 503 })
    const reply = await client(slept).get('x', '/x')
    assert.equal(reply.ok, true)
    // the retry's own 5 ms, then the rest of the host's pause after the 429 (7 ms: every request to
    // the host waits it out), then the 503's retry; one 5xx alone does not pause the host
    assert.deepEqual(slept, [5, 2, 10])
  })
})
