// decisions §3: a contest is `live` while opens_at ≤ now < expires_at. The api shows it as the service
// clock says it stands: from its expiry on it is `expired` and no series' active contest, even while
// the store still holds it live (the engine's next step has not written it yet, or no engine leads).
// Both request paths: the fast path keeps a handle on the cached answer, which must be let go.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createApiClient } from './support/api-client.ts'
import { makeContest, newSeries, quarterHourOf } from './support/contest-fixtures.ts'
import { createManualClock } from './support/manual-clock.ts'
import { createTestWorld } from './support/test-world.ts'

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
  })
}
