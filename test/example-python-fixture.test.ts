// examples/python/contest_signals.py against a loopback server that plays the API's answers, with its
// waits in the test's hands (time.sleep records what it was asked and returns at once): history
// a 429 whose Retry-After is long, history paged at any PAGE_SIZE, a stream that a restarting
// server first refuses with 503, one refused 429 longer than any request is retried, and a resume
// from the id a previous run printed.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { isExecutable } from './prerequisites/programs.ts'
import { childEnv, REPO_ROOT } from './support/service-process.ts'
import { waitFor } from './support/wait.ts'

const PYTHON = isExecutable('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
const SCRIPT = path.join(REPO_ROOT, 'examples/python/contest_signals.py')
// runs the example as `python3 contest_signals.py` would, with time.sleep recorded instead of slept
const HARNESS = `
import runpy, sys, time
slept = []
time.sleep = lambda s: slept.append(s)
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
finally:
    print("slept " + " ".join("%.3f" % s for s in slept), flush=True)
`

const EXPIRIES = [
  '2026-11-22T15:00:00Z',
  '2026-11-22T14:45:00Z',
  '2026-11-22T14:30:00Z',
  '2026-11-22T14:15:00Z',
  '2026-11-22T14:00:00Z',
]
const contest = (expiresAt: string) => ({
  ticker: `KXBTC15M-${expiresAt}`,
  state: 'settled',
  window: { opens_at: expiresAt, expires_at: expiresAt },
  strike_price_dollars: 1,
  settled_side: 'up',
  settled_price_dollars: 2,
  venue: 'kalshi',
  venue_refs: { market_ticker: `KXBTC15M-${expiresAt}`, event_ticker: 'KXBTC15M' },
  signals: [],
})
const frame = (id: string, c: ReturnType<typeof contest>) =>
  `event: contest.opened\nid: ${id}\ndata: ${JSON.stringify({ ...c, state: 'live' })}\n\n`

const problem = (res: ServerResponse, status: number, headers: Record<string, string>, detail: string) => {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers })
  res.end(JSON.stringify({ type: 'x', title: 'Refused', status, detail }))
}

/** What the scripted API answers before its normal answers. */
interface Scenario {
  /** the health document's answer: 200 ok, or the 503 of a service not ready */
  healthStatus: 200 | 503
  /** the first ask of the active contest: a slow bucket's 429, or the 404 between two windows */
  firstActive: 'rate-limited' | 'between-windows'
  /** 503s (Retry-After 3) before the first history page */
  historyUnavailable: number
}

/** A stand-in for the API: health, the active contest, history (`before` inclusive) and a scripted stream. */
function fakeApi(
  streamAnswers: ((req: IncomingMessage, res: ServerResponse) => void)[],
  scenario: Scenario = { healthStatus: 200, firstActive: 'rate-limited', historyUnavailable: 0 },
) {
  const limits: number[] = []
  const lastEventIds: (string | null)[] = []
  let activeAsks = 0
  let historyRefusals = scenario.historyUnavailable
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x')
    const json = (body: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (url.pathname === '/v1/health') {
      return scenario.healthStatus === 200
        ? json({ status: 'ok', version: '1.0.0' })
        : json({ status: 'unavailable', version: '1.0.0' }, 503)
    }
    if (url.pathname === '/v1/contests/active') {
      if (activeAsks++ === 0) {
        // a slow bucket (RATE_LIMIT_PER_SEC 0.01): Retry-After beyond any backoff cap
        if (scenario.firstActive === 'rate-limited')
          return problem(res, 429, { 'retry-after': '100' }, 'slow')
        return problem(res, 404, {}, 'no live contest in KXBTC15M')
      }
      return json({ ...contest(EXPIRIES[0]!), state: 'live' })
    }
    if (url.pathname === '/v1/contests') {
      if (historyRefusals > 0) {
        historyRefusals--
        return problem(res, 503, { 'retry-after': '3' }, 'the store is unavailable')
      }
      const limit = Number(url.searchParams.get('limit') ?? 20)
      limits.push(limit)
      if (!(limit >= 1 && limit <= 100)) return problem(res, 400, {}, 'limit')
      const beforeAt = url.searchParams.get('before')
      return json({
        contests: EXPIRIES.filter((at) => beforeAt === null || at <= beforeAt)
          .slice(0, limit)
          .map(contest),
      })
    }
    if (url.pathname === '/v1/stream/contests') {
      lastEventIds.push((req.headers['last-event-id'] as string | undefined) ?? null)
      const answer = streamAnswers.shift()
      if (answer) return answer(req, res)
    }
    res.writeHead(404).end()
  })
  return { server, limits, lastEventIds }
}

/** Starts the scripted API before the suite's tests and stops it after; its base URL once started. */
function listenDuringSuite(server: ReturnType<typeof createServer>): () => string {
  let base = ''
  before(async () => {
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(() => {
    server.closeAllConnections()
    server.close()
  })
  return () => base
}

function runPython(env: Record<string, string>): {
  child: ChildProcess
  output(): string
  exited: Promise<number>
} {
  const child = spawn(PYTHON, ['-c', HARNESS, SCRIPT], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  for (const stream of [child.stdout!, child.stderr!])
    stream.setEncoding('utf8').on('data', (d: string) => {
      out += d
    })
  return { child, output: () => out, exited: once(child, 'exit').then(([code]) => code as number) }
}

describe('examples/python/contest_signals.py against a scripted API', () => {
  const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' })
  const api = fakeApi([
    // first connection: two events, then the server goes away
    (_req, res) => {
      sse(res)
      res.end(`retry: 3000\n\n${frame('e-1', contest(EXPIRIES[1]!))}${frame('e-2', contest(EXPIRIES[0]!))}`)
    },
    // the restarting server (or its replacement without its store yet) asks to come back later
    (_req, res) => problem(res, 503, { 'retry-after': '7' }, 'shutting down'),
    // back: the events after the last one seen, then the stream stays open
    (_req, res) => {
      sse(res)
      res.write(frame('e-3', contest(EXPIRIES[0]!)))
    },
  ])
  const base = listenDuringSuite(api.server)

  it('waits a 429 out in full, pages every settled contest once at PAGE_SIZE 1, and resumes the stream after a 503', async () => {
    const run = runPython({ BASE: base(), KEY: 'cs_test', SERIES: 'KXBTC15M', PAGE_SIZE: '1' })
    try {
      // (or the example's exit, which the assertions below then explain)
      await waitFor('the event after the 503', () =>
        /^e-3 /m.test(run.output()) || run.child.exitCode !== null ? true : undefined,
      )
      run.child.kill('SIGTERM')
      assert.equal(await run.exited, 0, run.output())
    } finally {
      run.child.kill('SIGKILL')
    }
    const out = run.output()
    assert.match(out, /^history: 5 contests, 5 distinct, 0 signals, 0 wins$/m)
    assert.ok(
      api.limits.every((l) => l >= 1 && l <= 100),
      `limits asked: ${api.limits}`,
    )
    assert.match(out, /^stopped: 3 events, 2 connections, 0 duplicates$/m)
    assert.deepEqual(api.lastEventIds, [null, 'e-2', 'e-2'])
    const slept = /^slept (.*)$/m.exec(out)![1]!.split(' ').map(Number)
    // the 429 waited all the 100 s the server asked, not a capped minute
    assert.ok(
      slept.some((s) => s >= 100 && s < 101),
      `slept ${slept}`,
    )
    // after the 503 it waited at least the 7 s the server asked
    assert.ok(
      slept.some((s) => s >= 7 && s < 8),
      `slept ${slept}`,
    )
  })
})

describe('examples/python/contest_signals.py meeting a service that is not ready', () => {
  const api = fakeApi(
    [
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(`retry: 3000\n\n${frame('e-1', contest(EXPIRIES[0]!))}`)
      },
    ],
    { healthStatus: 503, firstActive: 'between-windows', historyUnavailable: 2 },
  )
  const base = listenDuringSuite(api.server)

  it('prints a 503 health document and a 404 active contest, waits out history 503s, and streams', async () => {
    const run = runPython({ BASE: base(), KEY: 'cs_test', SERIES: 'KXBTC15M' })
    try {
      await waitFor('the first event', () =>
        /^e-1 /m.test(run.output()) || run.child.exitCode !== null ? true : undefined,
      )
      run.child.kill('SIGTERM')
      assert.equal(await run.exited, 0, run.output())
    } finally {
      run.child.kill('SIGKILL')
    }
    const out = run.output()
    assert.match(out, /^health: unavailable 1\.0\.0$/m)
    assert.match(out, /^active: none in KXBTC15M right now$/m)
    assert.match(out, /^unavailable \(503\): waiting .* \(Retry-After 3 s, attempt 2\)$/m)
    assert.match(out, /^history: 5 contests, 5 distinct, 0 signals, 0 wins$/m)
    const slept = /^slept (.*)$/m.exec(out)![1]!.split(' ').map(Number)
    assert.equal(slept.filter((s) => s >= 3 && s < 4).length, 2, `slept ${slept}`)
  })
})

describe('examples/python/contest_signals.py on a stream refused 429 again and again, resumed from LAST_EVENT_ID', () => {
  // more refusals than any request is retried (5): the stream keeps waiting them out
  const refusals = Array.from(
    { length: 8 },
    () => (_req: IncomingMessage, res: ServerResponse) => problem(res, 429, { 'retry-after': '4' }, 'spent'),
  )
  const api = fakeApi([
    ...refusals,
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`retry: 3000\n\n${frame('e-8', contest(EXPIRIES[0]!))}`)
    },
  ])
  const base = listenDuringSuite(api.server)

  it('waits out every 429 by its Retry-After, resumes after the id it was given, and prints the last id when stopped', async () => {
    const run = runPython({ BASE: base(), KEY: 'cs_test', SERIES: 'KXBTC15M', LAST_EVENT_ID: 'e-7' })
    try {
      await waitFor('the event after the refusals', () =>
        /^e-8 /m.test(run.output()) || run.child.exitCode !== null ? true : undefined,
      )
      run.child.kill('SIGTERM')
      assert.equal(await run.exited, 0, run.output())
    } finally {
      run.child.kill('SIGKILL')
    }
    const out = run.output()
    assert.deepEqual(api.lastEventIds, Array(9).fill('e-7'))
    assert.equal((out.match(/^disconnected \(HTTP 429: spent\); reconnecting in /gm) ?? []).length, 8, out)
    assert.match(out, /^last event id: e-8 \(LAST_EVENT_ID=e-8 resumes after it\)$/m)
    assert.match(out, /^stopped: 1 events, 1 connections, 0 duplicates$/m)
    const slept = /^slept (.*)$/m.exec(out)![1]!.split(' ').map(Number)
    assert.ok(slept.filter((s) => s >= 4).length >= 8, `each 429's 4 s waited out: slept ${slept}`)
  })
})
