// The typed client's parts that need no server: the SSE parser on chunks cut anywhere, the waits
// (Retry-After, bounded exponential backoff), and the bounded 429 retries on a scripted fetch with
// time in the test's hands (the sleep records what it was asked and returns at once).
import assert from 'node:assert/strict'
import { describe, it, mock } from 'node:test'
import { setImmediate as turn } from 'node:timers/promises'
import { ApiError, createClient, createSseParser } from '../clients/typescript/src/index.ts'
import { backoffMs, retryAfterMs } from '../clients/typescript/src/waits.ts'

describe('createSseParser', () => {
  const FRAMES =
    'retry: 3000\n\n: keep-alive\n\nevent: contest.opened\nid: e-1\ndata: {"a":1}\n\nevent: signal.emitted\r\nid: e-2\r\ndata: {"b":\r\ndata: 2}\r\n\r\n'

  it('gives the same events however the text is cut, CRLF split included', () => {
    const whole = createSseParser().feed(FRAMES)
    assert.deepEqual(whole, [
      { event: 'contest.opened', id: 'e-1', data: '{"a":1}' },
      { event: 'signal.emitted', id: 'e-2', data: '{"b":\n2}' },
    ])
    for (let cut = 1; cut < FRAMES.length; cut++) {
      const parser = createSseParser()
      const events = [...parser.feed(FRAMES.slice(0, cut)), ...parser.feed(FRAMES.slice(cut))]
      assert.deepEqual(events, whole, `cut at ${cut}`)
      assert.equal(parser.retryMs, 3000)
    }
  })

  it('keeps the last id for events that carry none, and skips frames without data', () => {
    const events = createSseParser().feed('id: x-9\nevent: a\n\nevent: b\ndata: 1\n\n')
    assert.deepEqual(events, [{ event: 'b', id: 'x-9', data: '1' }])
  })
})

describe('waits', () => {
  it('reads Retry-After as seconds or as a date', () => {
    assert.equal(retryAfterMs('2'), 2000)
    assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 7_000), 3000)
    assert.equal(retryAfterMs(null), null)
    assert.equal(retryAfterMs('soon'), null)
  })

  it('waits at least what the server asked, doubles per attempt, and never past the cap', () => {
    for (let i = 0; i < 50; i++) {
      const first = backoffMs(0, 1000, 500, 60_000)
      assert.ok(first >= 1000 && first < 1250)
      const fourth = backoffMs(3, 1000, 500, 60_000)
      assert.ok(fourth >= 4000 && fourth < 4250)
      assert.ok(backoffMs(20, null, 500, 60_000) < 60_250)
      // the cap bounds the backoff, never what the server asked: retrying earlier only meets another 429
      const asked = backoffMs(0, 100_000, 500, 60_000)
      assert.ok(asked >= 100_000 && asked < 100_250, `waited ${asked}`)
    }
  })
})

describe('createClient on 429', () => {
  const problem = {
    type: 'x/problems/rate-limited',
    title: 'Too Many Requests',
    status: 429,
    detail: 'slow down',
  }
  const tooMany = () =>
    new Response(JSON.stringify(problem), {
      status: 429,
      headers: { 'content-type': 'application/problem+json', 'retry-after': '2' },
    })

  function scripted(answers: (() => Response)[]) {
    const slept: number[] = []
    const urls: string[] = []
    const client = createClient({
      baseUrl: 'http://signals.test/',
      apiKey: 'cs_k',
      maxRetries: 2,
      fetch: async (input) => {
        urls.push(String(input))
        return answers.shift()!()
      },
      sleep: async (ms) => {
        slept.push(ms)
      },
    })
    return { client, slept, urls }
  }

  it('retries after Retry-After, then answers', async () => {
    const contest = { ticker: 'T' }
    const { client, slept, urls } = scripted([tooMany, () => Response.json(contest)])
    assert.deepEqual(await client.activeContest('KX'), contest)
    assert.equal(slept.length, 1)
    assert.ok(slept[0]! >= 2000 && slept[0]! < 2250)
    assert.deepEqual(urls, [
      'http://signals.test/v1/contests/active?series=KX',
      'http://signals.test/v1/contests/active?series=KX',
    ])
  })

  it('gives up after maxRetries with the problem and the last Retry-After', async () => {
    const { client, slept } = scripted([tooMany, tooMany, tooMany])
    const err = await client.contest('T').catch((e: unknown) => e)
    assert.ok(err instanceof ApiError)
    assert.equal(err.status, 429)
    assert.equal(err.retryAfterS, 2)
    assert.deepEqual(err.problem, problem)
    assert.equal(slept.length, 2)
  })

  it('throws at once, rather than retry early, when Retry-After is longer than maxWaitMs', async () => {
    const slow = () => Response.json(problem, { status: 429, headers: { 'retry-after': '100' } })
    const { client, slept, urls } = scripted([slow, () => Response.json({ ticker: 'T' })])
    const err = await client.activeContest('KX').catch((e: unknown) => e)
    assert.ok(err instanceof ApiError && err.status === 429 && err.retryAfterS === 100, String(err))
    assert.deepEqual(slept, [])
    assert.equal(urls.length, 1)
  })

  it('does not retry a refused key', async () => {
    const unauthorized = () =>
      Response.json({ ...problem, status: 401, title: 'Unauthorized' }, { status: 401 })
    const { client, slept } = scripted([unauthorized])
    const err = await client.activeContest('KX').catch((e: unknown) => e)
    assert.ok(err instanceof ApiError && err.status === 401)
    assert.deepEqual(slept, [])
  })
})

describe('health', () => {
  const client = (res: () => Response) =>
    createClient({ baseUrl: 'http://signals.test', apiKey: 'cs_k', fetch: async () => res() })

  it('gives the health body the service answers with 503 when its store cannot be reached', async () => {
    const body = {
      status: 'unavailable',
      version: '1.0.0',
      time: '2026-11-22T16:55:00.849Z',
      checks: { store: 'unavailable', engine: 'unknown' },
    }
    const health = await client(() =>
      Response.json(body, { status: 503, headers: { 'retry-after': '5' } }),
    ).health()
    assert.deepEqual(health, body)
  })

  it('throws ApiError on a 503 problem (a server shutting down)', async () => {
    const problem = {
      type: 'x/problems/unavailable',
      title: 'Service Unavailable',
      status: 503,
      detail: 'bye',
    }
    const err = await client(() => Response.json(problem, { status: 503, headers: { 'retry-after': '5' } }))
      .health()
      .catch((e: unknown) => e)
    assert.ok(err instanceof ApiError && err.status === 503 && err.retryAfterS === 5)
  })
})

describe('settledHistory', () => {
  // a history endpoint as the API serves it: newest first, `before` inclusive, `limit` rows at most
  const EXPIRIES = [
    '2026-11-22T15:00:00Z',
    '2026-11-22T14:45:00Z',
    '2026-11-22T14:30:00Z',
    '2026-11-22T14:15:00Z',
    '2026-11-22T14:00:00Z',
  ]
  function history() {
    const limits: number[] = []
    const client = createClient({
      baseUrl: 'http://signals.test',
      apiKey: 'cs_k',
      fetch: async (input) => {
        const q = new URL(String(input)).searchParams
        const limit = Number(q.get('limit') ?? 20)
        limits.push(limit)
        const before = q.get('before')
        const rows = EXPIRIES.filter((at) => before === null || at <= before)
          .slice(0, limit)
          .map((at) => ({ ticker: `KX-${at}`, window: { opens_at: at, expires_at: at } }))
        return Response.json({ contests: rows })
      },
    })
    return { client, limits }
  }

  for (const pageSize of [1, 2, 3, 100]) {
    it(`yields every settled contest once, newest first, with pageSize ${pageSize}`, async () => {
      const { client, limits } = history()
      const seen: string[] = []
      for await (const c of client.settledHistory({ series: 'KX', pageSize })) seen.push(c.window.expires_at)
      assert.deepEqual(seen, EXPIRIES)
      // no request asks for more than the API allows
      assert.ok(
        limits.every((l) => l >= 1 && l <= 100),
        `limits ${limits}`,
      )
    })
  }
})

describe('the stream reader', () => {
  const frame = (id: string, ticker: string) =>
    `event: contest.opened\nid: ${id}\ndata: ${JSON.stringify({ ticker })}\n\n`
  const sse = (text: string) =>
    new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } })

  function scripted(answers: (() => Response)[]) {
    const lastEventIds: (string | null)[] = []
    const slept: number[] = []
    const client = createClient({
      baseUrl: 'http://signals.test',
      apiKey: 'cs_k',
      fetch: async (_input, init) => {
        lastEventIds.push(new Headers(init?.headers).get('last-event-id'))
        const next = answers.shift()
        if (!next) throw new TypeError('fetch failed')
        return next()
      },
      sleep: async (ms) => {
        slept.push(ms)
      },
    })
    return { client, lastEventIds, slept }
  }

  it('reconnects after the end of a response with Last-Event-ID, after the server’s retry delay', async () => {
    const { client, lastEventIds, slept } = scripted([
      () => sse(`retry: 1500\n\n${frame('e-1', 'A')}${frame('e-2', 'B')}`),
      () => sse(frame('e-3', 'C')),
    ])
    const abort = new AbortController()
    const stream = client.stream({ series: 'KX', signal: abort.signal })
    const ids: (string | null)[] = []
    for await (const e of stream) {
      ids.push(e.id)
      if (ids.length === 3) abort.abort()
    }
    assert.deepEqual(ids, ['e-1', 'e-2', 'e-3'])
    assert.deepEqual(lastEventIds, [null, 'e-2'])
    assert.ok(slept[0]! >= 1500 && slept[0]! < 1750, `waited ${slept[0]}`)
    assert.equal(stream.lastEventId, 'e-3')
  })

  it('resumes from a saved id, and stops at an abort even inside one chunk of many events', async () => {
    const { client, lastEventIds } = scripted([() => sse(`${frame('e-8', 'A')}${frame('e-9', 'B')}`)])
    const abort = new AbortController()
    const seen: string[] = []
    for await (const e of client.stream({ series: 'KX', lastEventId: 'e-7', signal: abort.signal })) {
      seen.push(e.id!)
      abort.abort()
    }
    assert.deepEqual(seen, ['e-8'])
    assert.deepEqual(lastEventIds, ['e-7'])
  })

  it('waits out a 503 (a restarting or overloaded server) by its Retry-After and resumes', async () => {
    const unavailable = () =>
      Response.json(
        { title: 'Service Unavailable', status: 503, detail: 'shutting down' },
        { status: 503, headers: { 'retry-after': '4' } },
      )
    const { client, lastEventIds, slept } = scripted([
      () => sse(frame('e-1', 'A')),
      unavailable,
      () => sse(frame('e-2', 'B')),
    ])
    const abort = new AbortController()
    const ids: (string | null)[] = []
    for await (const e of client.stream({ series: 'KX', signal: abort.signal })) {
      ids.push(e.id)
      if (ids.length === 2) abort.abort()
    }
    assert.deepEqual(ids, ['e-1', 'e-2'])
    assert.deepEqual(lastEventIds, [null, 'e-1', 'e-1'])
    assert.ok(slept[1]! >= 4000, `waited ${slept[1]} after the 503`)
  })

  it('gives up on a connection silent past idleTimeoutMs (a dead peer sends no FIN) and resumes', {
    timeout: 10_000,
  }, async () => {
    mock.timers.enable({ apis: ['setTimeout'] })
    try {
      // headers and one event, then nothing: no keep-alive, no end, as from a host that vanished
      const silent = () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode(frame('e-1', 'A')))
            },
          }),
          { status: 200, headers: { 'content-type': 'text/event-stream' } },
        )
      const { client, lastEventIds } = scripted([silent, () => sse(frame('e-2', 'B'))])
      const abort = new AbortController()
      const events = client
        .stream({ series: 'KX', signal: abort.signal, idleTimeoutMs: 45_000 })
        [Symbol.asyncIterator]()
      assert.equal((await events.next()).value?.id, 'e-1')
      const next = events.next()
      for (let i = 0; i < 5; i++) await turn()
      mock.timers.tick(44_000)
      for (let i = 0; i < 5; i++) await turn()
      assert.deepEqual(lastEventIds, [null], 'still waiting before the idle timeout')
      mock.timers.tick(1_000)
      assert.equal((await next).value?.id, 'e-2')
      assert.deepEqual(lastEventIds, [null, 'e-1'])
      abort.abort()
      await events.return?.(undefined)
    } finally {
      mock.timers.reset()
    }
  })

  it('ends with ApiError on a refused key rather than retrying', async () => {
    const { client } = scripted([
      () => Response.json({ title: 'Unauthorized', status: 401 }, { status: 401 }),
    ])
    await assert.rejects(
      (async () => {
        for await (const _ of client.stream({ series: 'KX' })) assert.fail('no event expected')
      })(),
      (err) => err instanceof ApiError && err.status === 401,
    )
  })
})
