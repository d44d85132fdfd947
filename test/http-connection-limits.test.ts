// Connection-level abuse over real sockets: silent, slow-header and slow-body connections are closed
// within the documented timeouts while a normal client keeps answering fast; the per-address cap
// on open streams.
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { percentile } from './support/load.ts'
import { openStream, type SseClient } from './support/sse-client.ts'
import { useTestWorld } from './support/test-world.ts'

/** The documented defaults (README, "Connection limits"). */
const IDLE_TIMEOUT_S = 15
const HEADERS_TIMEOUT_S = 10
const REQUEST_TIMEOUT_S = 10
const KEEP_ALIVE_TIMEOUT_S = 75
/** Node checks the headers and request timeouts on an interval (1 s here) */
const SLACK_S = 2

const { world } = useTestWorld({ env: { TRUST_PROXY: '127.0.0.1', STREAM_MAX_PER_ADDRESS: '3' } })

function report(line: string): void {
  process.stdout.write(`# ${line}\n`)
}

/** Opens a raw socket; resolves with the seconds until the server closed it (or null after `maxS`). */
async function timeUntilClosed(
  port: number,
  behave: (socket: Socket) => void,
  maxS: number,
): Promise<{ seconds: number | null; received: string }> {
  const socket = connect(port, '127.0.0.1')
  let received = ''
  socket.setEncoding('utf8').on('data', (d: string) => {
    received += d
  })
  socket.on('error', () => undefined)
  await new Promise((resolve) => socket.once('connect', resolve))
  const start = performance.now()
  behave(socket)
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => resolve(performance.now() - start)),
  )
  const seconds = await Promise.race([closed.then((ms) => ms / 1000), sleep(maxS * 1000).then(() => null)])
  socket.destroy()
  return { seconds, received }
}

function dripping(socket: Socket, text: string, everyMs: number): void {
  let i = 0
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer)
    socket.write(text[i % text.length]!)
    i++
  }, everyMs)
  socket.once('close', () => clearInterval(timer))
}

describe('connection limits', () => {
  test('the server runs with the documented timeouts', () => {
    const server = world.app.server
    assert.equal(server.timeout, IDLE_TIMEOUT_S * 1000)
    assert.equal(server.headersTimeout, HEADERS_TIMEOUT_S * 1000)
    assert.equal(server.requestTimeout, REQUEST_TIMEOUT_S * 1000)
    assert.equal(server.keepAliveTimeout, KEEP_ALIVE_TIMEOUT_S * 1000)
  })

  test('closes silent, slow-header and slow-body sockets in time while a normal client stays fast', async () => {
    const port = Number(new URL(world.baseUrl).port)
    const maxS = IDLE_TIMEOUT_S + SLACK_S + 3
    const silent = Array.from({ length: 50 }, () => timeUntilClosed(port, () => undefined, maxS))
    const slowHeader = timeUntilClosed(
      port,
      (s) => {
        s.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n')
        dripping(s, 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaa\r\n', 500)
      },
      maxS,
    )
    const slowBody = timeUntilClosed(
      port,
      (s) => {
        s.write(
          `GET /v1/contests/active?series=X HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${world.key}\r\nContent-Length: 100000\r\n\r\n`,
        )
        dripping(s, 'a', 500)
      },
      maxS,
    )
    const latencies: number[] = []
    let abusersDone = false
    const normal = (async () => {
      while (!abusersDone) {
        const t = performance.now()
        const res = await fetch(`${world.baseUrl}/v1/contests/active?series=NOPE`, {
          headers: { Authorization: `Bearer ${world.key}` },
        })
        await res.arrayBuffer()
        assert.equal(res.status, 404)
        latencies.push(performance.now() - t)
        await sleep(100)
      }
    })()
    const [silentResults, header, body] = await Promise.all([Promise.all(silent), slowHeader, slowBody])
    abusersDone = true
    await normal
    const silentWorst = Math.max(...silentResults.map((r) => r.seconds ?? Number.POSITIVE_INFINITY))
    report(
      `silent sockets closed after ≤ ${silentWorst.toFixed(2)} s; slow header after ${header.seconds?.toFixed(2)} s; slow body after ${body.seconds?.toFixed(2)} s; normal client p99 ${percentile(latencies, 99).toFixed(1)} ms over ${latencies.length} requests`,
    )
    assert.ok(silentWorst <= IDLE_TIMEOUT_S + SLACK_S, `silent socket open ${silentWorst} s`)
    assert.ok(
      header.seconds !== null && header.seconds <= HEADERS_TIMEOUT_S + SLACK_S,
      `slow header ${header.seconds}`,
    )
    assert.ok(
      body.seconds !== null && body.seconds <= REQUEST_TIMEOUT_S + SLACK_S,
      `slow body ${body.seconds}`,
    )
    assert.ok(percentile(latencies, 99) < 300, `normal client p99 ${percentile(latencies, 99)} ms`)
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
      const body = (await refused.json()) as { type: string; status: number }
      assert.equal(refused.status, 429)
      assert.equal(body.status, 429)
      assert.match(body.type, /\/problems\/rate-limited$/)
      assert.ok(Number(refused.headers.get('retry-after')) >= 1)
      assert.ok(refused.headers.get('x-ratelimit-limit'))
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '0')
      // Another address is not affected; closing one stream makes room again.
      const other = await openStream(url, from('192.0.2.8'))
      open.push(other)
      assert.equal(other.status, 200)
      open[0]!.close()
      await sleep(200)
      const again = await openStream(url, from('192.0.2.7'))
      open.push(again)
      assert.equal(again.status, 200)
    } finally {
      for (const s of open) s.close()
    }
  })
})
