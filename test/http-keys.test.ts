import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createApiClient } from './support/api-client.ts'
import { newSeries, seedLiveContest } from './support/contest-fixtures.ts'
import { createTestWorld } from './support/test-world.ts'
import { waitFor } from './support/wait.ts'

describe('API key bookkeeping', () => {
  test('records when each key was last used, written when the app closes', async () => {
    const world = await createTestWorld()
    try {
      const api = createApiClient(world)
      const unused = await world.issueKey('unused')
      const series = newSeries()
      await seedLiveContest(world.store, series, 0)
      const before = Date.now()
      assert.equal((await api.get(`/v1/contests/active?series=${series}`, world.key)).status, 200)
      await world.app.close()
      const keys = await world.store.listKeys()
      const used = keys.find((k) => k.id === world.keyId)!
      assert.ok(used.lastUsedAt !== null && used.lastUsedAt >= before, `lastUsedAt ${used.lastUsedAt}`)
      assert.equal(keys.find((k) => k.id === unused.record.id)!.lastUsedAt, null)
    } finally {
      await world.close()
    }
  })

  test('accepts a key created after the app started', async () => {
    const world = await createTestWorld()
    try {
      const api = createApiClient(world)
      const fresh = await world.issueKey('fresh')
      const res = await api.get(`/v1/contests?series=${newSeries()}`, fresh.key)
      assert.equal(res.status, 200)
    } finally {
      await world.close()
    }
  })

  test('stops accepting a revoked key on every app sharing the store once the event arrives', async () => {
    const world = await createTestWorld()
    try {
      const api = createApiClient(world)
      const key = await world.issueKey('revoked-later')
      const path = `/v1/contests?series=${newSeries()}`
      assert.equal((await api.get(path, key.key)).status, 200)
      await world.store.revokeKey(key.record.id, Date.now())
      // decisions §7: a revoked key stops working within 5 s
      await waitFor(
        'the revoked key to be refused',
        async () => ((await api.get(path, key.key)).status === 401 ? true : undefined),
        5000,
        20,
      )
    } finally {
      await world.close()
    }
  })
})
