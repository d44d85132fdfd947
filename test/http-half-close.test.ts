// A client may send its request and close its side of the connection at once (socket.end(request):
// curl does not, but one-shot clients, probes and some proxies do). The answer must still come,
// however long the store takes: Node's default aborts a request still being answered when the
// client's FIN arrives, so on PostgreSQL such requests went unanswered now and then.
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { describe, test } from 'node:test'
import type { Store } from '../src/ports/store.ts'
import { makeContest, newSeries, quarterHourOf } from './support/contest-fixtures.ts'
import { createGate } from './support/gate.ts'
import { rawExchange } from './support/raw-request.ts'
import { createTestWorldWithRealHub } from './support/real-hub-world.ts'
import { openStream } from './support/sse-client.ts'
import { createTestWorld } from './support/test-world.ts'
import { waitUntil } from './support/wait.ts'

describe('a client that half-closes after its request', () => {
  for (const fastPath of [true, false]) {
    test(`still gets its answer when the store answers after the FIN (${fastPath ? 'fast path' : 'framework'})`, async () => {
      const gate = createGate()
      let release: (() => void) | null = null
      const finSeen: Promise<void>[] = []
      const slow = (real: Store): Store =>
        new Proxy(real, {
          get(target, prop, receiver) {
            if (prop === 'getContest')
              return async (ticker: string) => {
                await gate.pass()
                return target.getContest(ticker)
              }
            return Reflect.get(target, prop, receiver)
          },
        })
      const w = await createTestWorld({
        fastPath,
        wrapStore: slow,
        beforeListen: (app) =>
          app.server.on('connection', (socket: Socket) => {
            finSeen.push(new Promise((resolve) => socket.once('end', () => resolve())))
          }),
      })
      try {
        const contest = makeContest({ series: newSeries(), opensAt: quarterHourOf(Date.now()) })
        await w.store.openContest(contest)
        release = gate.hold()
        const answer = rawExchange(
          w.baseUrl,
          `GET /v1/contests/${contest.ticker} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.key}\r\n\r\n`,
        )
        // the request is parsed and waiting on the store; the client's FIN has reached the server
        while (finSeen.length === 0) await new Promise((r) => setImmediate(r))
        await finSeen[0]
        release()
        const text = await answer
        assert.match(text, /^HTTP\/1\.1 200 /)
        assert.ok(text.includes(contest.ticker))
      } finally {
        release?.()
        await w.close()
      }
    })
  }
})

describe('a stream whose client half-closes after its request', () => {
  for (const fastPath of [true, false]) {
    test(`is ended at once and frees its place under STREAM_MAX_PER_ADDRESS (${fastPath ? 'fast path' : 'framework'})`, async () => {
      const w = await createTestWorldWithRealHub({ fastPath, env: { STREAM_MAX_PER_ADDRESS: '1' } })
      try {
        const series = newSeries()
        const contest = makeContest({ series, opensAt: quarterHourOf(Date.now()) })
        await w.store.openContest(contest)
        await w.sync()
        // An event-stream client sends nothing after its request: its FIN means it is gone. The
        // server closes the connection (rawExchange resolves), not a keep-alive interval later.
        const text = await rawExchange(
          w.baseUrl,
          `GET /v1/stream/contests?series=${series} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.key}\r\n\r\n`,
        )
        assert.ok(text === '' || text.startsWith('HTTP/1.1 200 '), text)
        await waitUntil(() => w.streams.size() === 0, 'the stream to end')
        const next = await openStream(`${w.baseUrl}/v1/stream/contests?series=${series}`, { key: w.key })
        try {
          assert.equal(next.status, 200, 'the place is free again')
          await waitUntil(() => next.events.length >= 1, 'the snapshot')
          assert.equal(JSON.parse(next.events[0]!.data).ticker, contest.ticker)
        } finally {
          next.close()
        }
      } finally {
        await w.close()
      }
    })
  }
})
