import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { createManualClock } from '../../test/support/manual-clock.ts'
import type { Store } from '../ports/store.ts'
import { createSqliteStore } from '../store/sqlite/sqlite-store.ts'
import { createServiceClock, createVirtualClock } from './service-clock.ts'

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0)

describe('virtual clock', () => {
  it('runs speed times faster than the wall clock from its anchor', () => {
    const wall = createManualClock(T0)
    const clock = createVirtualClock(wall, { wall0: T0, virtual0: T0, speed: 60 })
    assert.equal(clock.now(), T0)
    wall.advance(1000)
    assert.equal(clock.now(), T0 + 60_000)
  })

  it('is the wall clock itself at speed 1 with a wall anchor', () => {
    const wall = createManualClock(T0)
    assert.equal(createVirtualClock(wall, { wall0: T0, virtual0: T0, speed: 1 }), wall)
  })
})

describe('service clock', () => {
  let dir: string
  let store: Store
  const wall = createManualClock(T0)
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'cs-clock-'))
    store = createSqliteStore(path.join(dir, 'c.db'))
    await store.migrate()
    wall.set(T0)
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('is the wall clock for a deployment that never ran accelerated', async () => {
    assert.equal(await createServiceClock(store, wall, 1), wall)
  })

  it('starts at the wall clock on a first accelerated start (t0 = process start)', async () => {
    const clock = await createServiceClock(store, wall, 60)
    assert.equal(clock.now(), T0)
    wall.advance(1000)
    assert.equal(clock.now(), T0 + 60_000)
  })

  it('continues the same timeline after a restart instead of jumping back', async () => {
    await createServiceClock(store, wall, 60)
    wall.set(T0 + 10_000) // the process ran (or was down) for 10 wall seconds
    const restarted = await createServiceClock(store, wall, 60)
    assert.equal(restarted.now(), T0 + 600_000)
  })

  it('gives processes started together one timeline', async () => {
    const [a, b] = await Promise.all([
      createServiceClock(store, wall, 60),
      createServiceClock(store, wall, 60),
    ])
    wall.advance(500)
    assert.equal(a.now(), b.now())
  })

  it('continues from where the timeline stood when the speed changes', async () => {
    await createServiceClock(store, wall, 60)
    wall.set(T0 + 1000)
    const slower = await createServiceClock(store, wall, 1)
    assert.equal(slower.now(), T0 + 60_000)
    wall.advance(1000)
    assert.equal(slower.now(), T0 + 61_000)
  })

  it('begins a new timeline at SIM_START, at any speed, and never moves it on a restart', async () => {
    const monday = Date.parse('2026-11-23T17:00:00Z')
    const clock = await createServiceClock(store, wall, 1, monday)
    assert.equal(clock.now(), monday)
    wall.advance(1000)
    assert.equal(clock.now(), monday + 1000)
    // a restart with another SIM_START continues the stored timeline
    const restarted = await createServiceClock(store, wall, 1, monday + 86_400_000)
    assert.equal(restarted.now(), monday + 1000)
  })
})
