// decisions §3: a contest is `live` while opens_at ≤ now < expires_at. The api shows it as the service
// clock says it stands: from its expiry on it is `expired` and no series' active contest, even while
// the store still holds it live (the engine's next step has not written it yet, or no engine leads).
// Both request paths: the fast path keeps a handle on the cached answer, which must be let go.
// The stream's fresh-connect snapshot (decisions §6: "the live contest") follows the same rule.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createApiClient } from './support/api-client.ts'
import { makeContest, makeSignal, newSeries, quarterHourOf, UP } from './support/contest-fixtures.ts'
import { createManualClock } from './support/manual-clock.ts'
import { createTestWorldWithRealHub } from './support/real-hub-world.ts'
import { openStream } from './support/sse-client.ts'
import { createTestWorld } from './support/test-world.ts'
import { waitUntil } from './support/wait.ts'

for (const fastPath of [true, false]) {
  describe(`a live contest at its expiry (${fastPath ? 'fast path' : 'framework path'})`, () => {
    test('is live one millisecond before, expired at its expires_at, and no longer the active one', async () => {
      const opensAt = quarterHourOf(Date.now())
      const clock = createManualClock(opensAt + 15 * 60_000 - 1)
      const w = await createTestWorld({ fastPath, wallClock: clock })
      try {
        const series = newSeries()
        const contest = makeContest({ series, opensAt })
        await w.store.openContest(contest)
        const api = createApiClient(w)
        const before = await api.get(`/v1/contests/active?series=${series}`, w.key)
        assert.equal(before.status, 200)
        assert.equal(before.json.state, 'live')
        assert.equal((await api.get(`/v1/contests/${contest.ticker}`, w.key)).json.state, 'live')
        // asked again, so a fast path answers from its kept handle
        assert.equal((await api.get(`/v1/contests/active?series=${series}`, w.key)).status, 200)

        clock.advance(1)
        const byTicker = await api.get(`/v1/contests/${contest.ticker}`, w.key)
        assert.equal(byTicker.status, 200)
        assert.equal(byTicker.json.state, 'expired')
        assert.notEqual(byTicker.headers.get('etag'), null)
        const active = await api.get(`/v1/contests/active?series=${series}`, w.key)
        assert.equal(active.status, 404)
        const byLiveTicker = await api.get(`/v1/contests/active?series=${contest.ticker}`, w.key)
        assert.equal(byLiveTicker.status, 404)
        assert.equal((await w.store.getContest(contest.ticker))?.state, 'live', 'the store was not told')
      } finally {
        await w.close()
      }
    })

    test('a stream opened from its expiry on gets no snapshot of it, by series or by its ticker', async () => {
      const opensAt = quarterHourOf(Date.now())
      const clock = createManualClock(opensAt + 15 * 60_000 - 1)
      const w = await createTestWorldWithRealHub({ fastPath, wallClock: clock })
      const streams: Array<{ close(): void }> = []
      try {
        const series = newSeries()
        const contest = makeContest({ series, opensAt })
        await w.store.openContest(contest)
        await w.store.addSignal(makeSignal(contest, { minute: 1 }))
        await w.sync()
        const url = (s: string) => `${w.baseUrl}/v1/stream/contests?series=${s}`
        const before = await openStream(url(series), { key: w.key })
        streams.push(before)
        await waitUntil(() => before.events.length >= 2, 'the snapshot while live')
        assert.deepEqual(
          before.events.map((e) => e.event),
          ['contest.opened', 'signal.emitted'],
        )

        clock.advance(1)
        const api = createApiClient(w)
        assert.equal((await api.get(`/v1/contests/active?series=${series}`, w.key)).status, 404)
        const bySeries = await openStream(url(series), { key: w.key })
        const byTicker = await openStream(url(contest.ticker), { key: w.key })
        streams.push(bySeries, byTicker)
        await waitUntil(() => w.streams.size() === 3, 'both streams attached')
        // the engine's next step: the old window expires, the next opens, the old one settles
        await w.store.expireContest(contest.ticker)
        const next = makeContest({ series, opensAt: opensAt + 15 * 60_000 })
        await w.store.openContest(next)
        await w.store.settleContest(contest.ticker, UP)
        // No series event can reach a stream scoped to a series named like the old ticker but this
        // contest's opening, written last: once it is there, anything else would have been too.
        const fence = makeContest({ series: contest.ticker, opensAt: next.opensAt })
        await w.store.openContest(fence)
        await w.sync()
        const names = (e: { event?: string; data: string }) => {
          const data = JSON.parse(e.data)
          return `${e.event} ${data.ticker ?? data.signal.ticker}`
        }
        await waitUntil(() => bySeries.events.some((e) => e.event === 'contest.settled'), 'the settlement')
        assert.deepEqual(bySeries.events.map(names), [
          `contest.opened ${next.ticker}`,
          `contest.settled ${contest.ticker}`,
        ])
        await waitUntil(
          () => byTicker.events.some((e) => e.event === 'contest.settled' || names(e).endsWith(fence.ticker)),
          'the fence, or the old contest settled',
        )
        assert.deepEqual(byTicker.events.map(names), [`contest.opened ${fence.ticker}`])
      } finally {
        for (const s of streams) s.close()
        await w.close()
      }
    })
  })
}
