// A store's sandbox is fixed at its first start (src/main/sim-timeline.ts): a restart without
// SIM_SEED continues the same world, and a seed or settings that contradict it are refused.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../src/config/config.ts'
import { SIM_PARAMS } from '../src/feeds/sim/sim-params.ts'
import { peekSimWorld, resolveSimWorld, SIM_WORLD_KEY } from '../src/main/sim-timeline.ts'
import type { Store } from '../src/ports/store.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { tempDir } from './support/service-process.ts'

const tmp = tempDir('cs-sim-timeline-')
after(() => tmp.remove())
let stores = 0
async function newStore(file = path.join(tmp.dir, `s${++stores}.db`)): Promise<Store> {
  const store = createSqliteStore(file)
  await store.migrate()
  return store
}
const settings = (env: Record<string, string> = {}) => loadConfig(env)

describe('resolveSimWorld', () => {
  it('keeps the first start’s seed and settings for a restart that names neither', async () => {
    const store = await newStore()
    try {
      const first = await resolveSimWorld(store, settings({ SIM_SEED: '5', SIM_PARAMS: 'shrink' }))
      assert.equal(first.seed, 5)
      assert.equal(first.params.crowd.bias, 'shrink')
      const again = await resolveSimWorld(store, settings())
      assert.deepEqual(again, first)
      // naming the same ones again is no contradiction
      assert.deepEqual(await resolveSimWorld(store, settings({ SIM_SEED: '5', SIM_PARAMS: 'shrink' })), first)
    } finally {
      await store.close()
    }
  })

  it('draws a seed for a first start without SIM_SEED, and keeps it', async () => {
    const store = await newStore()
    try {
      const first = await resolveSimWorld(store, settings())
      assert.ok(Number.isSafeInteger(first.seed) && first.seed > 0)
      assert.deepEqual(first.params, SIM_PARAMS)
      assert.equal((await resolveSimWorld(store, settings())).seed, first.seed)
    } finally {
      await store.close()
    }
  })

  it('refuses a SIM_SEED or SIM_PARAMS that contradicts the timeline, naming each', async () => {
    const store = await newStore()
    try {
      await resolveSimWorld(store, settings({ SIM_SEED: '5' }))
      await assert.rejects(
        resolveSimWorld(store, settings({ SIM_SEED: '6', SIM_PARAMS: 'floor' })),
        (err) => {
          assert.ok(err instanceof ConfigError)
          assert.equal(err.problems.length, 2)
          assert.match(err.problems[0]!, /^SIM_SEED: 6 is not this store's timeline seed 5/)
          assert.match(err.problems[1]!, /^SIM_PARAMS: differs from this store's timeline settings/)
          return true
        },
      )
    } finally {
      await store.close()
    }
  })

  it('gives processes that start at once on one store the same world', async () => {
    const file = path.join(tmp.dir, 'shared.db')
    const a = await newStore(file)
    const b = await newStore(file)
    try {
      const [x, y] = await Promise.all([resolveSimWorld(a, settings()), resolveSimWorld(b, settings())])
      assert.equal(x.seed, y.seed)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('fills a setting added since the timeline began with its default, and refuses an unreadable record', async () => {
    const store = await newStore()
    try {
      const { crowd, ...rest } = SIM_PARAMS
      const { lagSeconds: _, ...olderCrowd } = crowd
      await store.putSetting(
        SIM_WORLD_KEY,
        JSON.stringify({ seed: 9, params: { ...rest, crowd: olderCrowd } }),
      )
      const world = await resolveSimWorld(store, settings())
      assert.equal(world.seed, 9)
      assert.deepEqual(world.params, SIM_PARAMS)
      await store.putSetting(SIM_WORLD_KEY, '{"seed":"nine"}')
      await assert.rejects(resolveSimWorld(store, settings()), /sandbox setting "sim-world" is unreadable/)
    } finally {
      await store.close()
    }
  })
})

describe('peekSimWorld (venue check: a look, not a start)', () => {
  it('names the sandbox SIM_SEED gives on a store without one and writes nothing; on a fixed store, its sandbox, refusing another seed', async () => {
    const store = await newStore()
    try {
      assert.equal((await peekSimWorld(store, settings({ SIM_SEED: '9' }))).seed, 9)
      assert.equal(await store.getSetting(SIM_WORLD_KEY), null)
      const fixed = await resolveSimWorld(store, settings({ SIM_SEED: '5' }))
      assert.deepEqual(await peekSimWorld(store, settings()), fixed)
      await assert.rejects(peekSimWorld(store, settings({ SIM_SEED: '6' })), (err: unknown) => {
        assert.ok(err instanceof ConfigError)
        assert.match(err.problems.join(), /SIM_SEED: 6 is not this store's timeline seed 5/)
        return true
      })
    } finally {
      await store.close()
    }
  })
})
