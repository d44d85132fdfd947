import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { waitUntil } from '../../test/support/wait.ts'
import { countWhenAnswered, type RequestMetrics } from './request-metrics.ts'

type Counted = { route: string; method: string; status: number }

describe('request metrics', () => {
  const counted: Counted[] = []
  const metrics: RequestMetrics = {
    countRequest: (route, method, status) => counted.push({ route, method, status }),
  }
  // A response's 'close', seen by a listener added after the one countWhenAnswered adds.
  const closed: string[] = []
  let slowReached = false
  let app: FastifyInstance
  let base: string

  before(async () => {
    app = Fastify({ forceCloseConnections: true })
    app.addHook('onRequest', (request, reply, done) => {
      countWhenAnswered(metrics, request, reply)
      reply.raw.once('close', () => closed.push(request.url))
      done()
    })
    // Stands in for the rate limiter: answers in the first hook, before any route runs.
    app.addHook('onRequest', async (request, reply) =>
      request.headers['x-refuse'] ? reply.code(429).send('slow down') : undefined,
    )
    app.get('/things/:id', async () => ({ ok: true }))
    app.get('/slow', async () => {
      slowReached = true
      return new Promise(() => undefined)
    })
    app.get('/stream', async (_request, reply) => {
      reply.hijack()
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream' })
      reply.raw.write('retry: 3000\n\n')
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  })
  after(() => app.close())

  /** What was counted for the requests `fn` makes, once the server has closed the response to `url`. */
  async function countedAfter(url: string, fn: () => Promise<unknown>): Promise<Counted[]> {
    const from = counted.length
    const closedFrom = closed.length
    await fn()
    // 'close' follows the end of the response by a turn of the loop; the counter's listener runs first.
    await waitUntil(
      () => closed.slice(closedFrom).includes(url),
      `the server to close the response to ${url}`,
    )
    return counted.slice(from)
  }

  it('labels a matched request with its route pattern, never the raw URL', async () => {
    const got = await countedAfter('/things/abc-123?x=1', () =>
      fetch(`${base}/things/abc-123?x=1`).then((r) => r.text()),
    )
    assert.deepEqual(got, [{ route: '/things/:id', method: 'GET', status: 200 }])
  })

  it("labels a request that matched no route 'unknown'", async () => {
    const got = await countedAfter('/no/such/path', () => fetch(`${base}/no/such/path`).then((r) => r.text()))
    assert.deepEqual(got, [{ route: 'unknown', method: 'GET', status: 404 }])
  })

  it('counts a request refused by an earlier onRequest hook with its status', async () => {
    const got = await countedAfter('/things/1', () =>
      fetch(`${base}/things/1`, { headers: { 'x-refuse': '1' } }).then((r) => r.text()),
    )
    assert.deepEqual(got, [{ route: '/things/:id', method: 'GET', status: 429 }])
  })

  it('counts a hijacked stream once, when the client leaves', async () => {
    const got = await countedAfter('/stream', async () => {
      const controller = new AbortController()
      const res = await fetch(`${base}/stream`, { signal: controller.signal })
      assert.equal(res.status, 200)
      controller.abort()
    })
    assert.deepEqual(got, [{ route: '/stream', method: 'GET', status: 200 }])
  })

  it('does not count a request whose client left before any answer', async () => {
    const got = await countedAfter('/slow', async () => {
      const req = httpRequest(`${base}/slow`)
      const failed = new Promise<void>((resolve) => req.on('error', () => resolve()))
      req.end()
      // leave once the request has reached its handler, which never answers
      await waitUntil(() => slowReached, 'the slow request to reach its handler')
      req.destroy()
      await failed
    })
    assert.deepEqual(got, [])
  })
})
