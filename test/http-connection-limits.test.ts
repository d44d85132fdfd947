// Connection-level abuse over real sockets: silent, slow-header and slow-body connections do not
// keep a normal client waiting, and each is closed by its own rule; the per-address cap on open
// streams. No test measures how long anything took (test/README.md): the documented timeouts are
// checked as the server's settings, and their effect with short ones a test world sets.
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { describe, test } from 'node:test'
import { idleTimeoutOf } from '../src/http/idle-connections.ts'
import { openStream, type SseClient } from './support/sse-client.ts'
import { createTestWorld, useTestWorld } from './support/test-world.ts'
import { waitFor, within } from './support/wait.ts'

/** The documented defaults (docs/scaling.md, "Connection limits"). */
const IDLE_TIMEOUT_S = 15
const HEADERS_TIMEOUT_S = 10
const REQUEST_TIMEOUT_S = 10
const KEEP_ALIVE_TIMEOUT_S = 75

const { world } = useTestWorld({ env: { TRUST_PROXY: '127.0.0.1', STREAM_MAX_PER_ADDRESS: '3' } })

type AbusiveSocket = {
  /** what the server sent before it closed the socket */
  received(): string
  /** false until the server closes the socket */
  isOpen(): boolean
  /** settles with what the server sent, once it closed the socket */
  closed: Promise<string>
  destroy(): void
}

/** Opens a raw socket to `port` and lets `behave` use it; only the server closes it, or destroy(). */
async function abusiveSocket(port: number, behave: (socket: Socket) => void): Promise<AbusiveSocket> {
  const socket = connect(port, '127.0.0.1')
  let received = ''
  let open = true
  socket.setEncoding('utf8').on('data', (d: string) => {
    received += d
  })
  socket.on('error', () => undefined)
  const closed = new Promise<string>((resolve) =>
    socket.once('close', () => {
      open = false
      resolve(received)
    }),
  )
  await new Promise((resolve) => socket.once('connect', resolve))
  behave(socket)
  return { received: () => received, isOpen: () => open, closed, destroy: () => socket.destroy() }
}

/** Writes `text` one character at a time, one every `everyMs`: a client that never finishes. */
function dripping(socket: Socket, text: string, everyMs: number): void {
  let i = 0
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer)
    socket.write(text[i % text.length]!)
    i++
  }, everyMs)
  socket.once('close', () => clearInterval(timer))
}

/** 50 silent sockets, one dripping its headers, one dripping the body it announced. */
async function abuse(port: number, key: string) {
  const silent = await Promise.all(Array.from({ length: 50 }, () => abusiveSocket(port, () => undefined)))
  const slowHeader = await abusiveSocket(port, (s) => {
    s.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n')
    dripping(s, 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaa\r\n', 200)
  })
  const slowBody = await abusiveSocket(port, (s) => {
    s.write(
      `GET /v1/contests/active?series=X HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: 100000\r\n\r\n`,
    )
    dripping(s, 'a', 200)
  })
  return { silent, slowHeader, slowBody, all: [...silent, slowHeader, slowBody] }
}

describe('connection limits', () => {
  test('the server runs with the documented timeouts', () => {
    const server = world.app.server
    assert.equal(idleTimeoutOf(server), IDLE_TIMEOUT_S * 1000)
    // Node's own idle timer on every socket is off: the sweep of idle-connections.ts does its work
    assert.equal(server.timeout, 0)
    assert.equal(server.headersTimeout, HEADERS_TIMEOUT_S * 1000)
    assert.equal(server.requestTimeout, REQUEST_TIMEOUT_S * 1000)
    assert.equal(server.keepAliveTimeout, KEEP_ALIVE_TIMEOUT_S * 1000)
  })

  test('answers a normal client while silent, slow-header and slow-body connections hold on', async () => {
    const port = Number(new URL(world.baseUrl).port)
    const abusers = await abuse(port, world.key)
    try {
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${world.baseUrl}/v1/contests/active?series=NOPE`, {
          headers: { Authorization: `Bearer ${world.key}` },
        })
        await res.arrayBuffer()
        assert.equal(res.status, 404)
      }
      // every answer came while all the abusive connections were still open: none of them was in the way
      assert.deepEqual(
        abusers.all.filter((a) => !a.isOpen()).length,
        0,
        'an abusive connection was closed before the normal client was done',
      )
    } finally {
      for (const a of abusers.all) a.destroy()
    }
  })

  test('closes silent, slow-header and slow-body connections, each by its own timeout', async () => {
    // the same rules with short limits, so the test waits a moment rather than the documented seconds
    const short = await createTestWorld({
      // (the headers timeout above the idle one, so each silent socket is the idle timeout's alone)
      env: { HTTP_IDLE_TIMEOUT_S: '1', HTTP_HEADERS_TIMEOUT_S: '2', HTTP_REQUEST_TIMEOUT_S: '2.5' },
    })
    const abusers = await abuse(Number(new URL(short.baseUrl).port), short.key)
    try {
      const closedBy = (a: AbusiveSocket, what: string) =>
        within(a.closed, `the server to close ${what}`, 15_000)
      // a silent socket is closed by the idle timeout, with nothing said
      for (const sent of await Promise.all(abusers.silent.map((a) => closedBy(a, 'a silent socket'))))
        assert.equal(sent, '')
      // headers that never end: 408 from the headers timeout
      assert.match(await closedBy(abusers.slowHeader, 'the slow-header socket'), /^HTTP\/1\.1 408 /)
      // a body that never ends: closed by the request timeout, however it was answered
      await closedBy(abusers.slowBody, 'the slow-body socket')
    } finally {
      for (const a of abusers.all) a.destroy()
      await short.close()
    }
  })

  test('refuses a stream over STREAM_MAX_PER_ADDRESS with the rate-limited problem and its headers', async () => {
    const url = `${world.baseUrl}/v1/stream/contests?series=CAPPED`
    const from = (address: string) => ({ key: world.key, headers: { 'X-Forwarded-For': address } })
    const open: SseClient[] = []
    try {
      for (let i = 0; i < 3; i++) open.push(await openStream(url, from('192.0.2.7')))
      assert.deepEqual(
        open.map((s) => s.status),
        [200, 200, 200],
      )
      const refused = await fetch(url, {
        headers: { Authorization: `Bearer ${world.key}`, 'X-Forwarded-For': '192.0.2.7' },
      })
      const body = (await refused.json()) as { type: string; title: string; status: number; detail: string }
      assert.equal(refused.status, 429)
      assert.equal(body.status, 429)
      assert.match(body.type, /\/problems\/rate-limited$/)
      // the spec's rate-limit body (section 7), whichever limit refused
      assert.equal(body.title, 'Too Many Requests')
      assert.match(body.detail, /rate limit is exceeded/i)
      assert.match(body.detail, /retry shortly/i)
      assert.ok(Number(refused.headers.get('retry-after')) >= 1)
      assert.ok(refused.headers.get('x-ratelimit-limit'))
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '0')
      // Another address is not affected; closing one stream makes room again.
      const other = await openStream(url, from('192.0.2.8'))
      open.push(other)
      assert.equal(other.status, 200)
      open[0]!.close()
      const again = await waitFor('room for another stream from 192.0.2.7', async () => {
        const attempt = await openStream(url, from('192.0.2.7'))
        if (attempt.status === 200) return attempt
        attempt.close()
        return undefined
      })
      open.push(again)
    } finally {
      for (const s of open) s.close()
    }
  })
})
