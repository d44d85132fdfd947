// The engine's loop wakes at the instant a boundary comes on its clock (decisions §3, §11): a contest
// opens at its window's open and a minute's reading starts at the minute, not up to a tick after,
// at speed 1 and on the simulator's accelerated clock alike. The fixed tick is set far away here, so
// only the boundary can wake the engine; the timers are node:test's, moved in step with the clocks.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it, mock } from 'node:test'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { formatTicker, QUARTER_MS } from '../src/domain/ticker.ts'
import type { Engine } from '../src/engine/engine.ts'
import type { Clock } from '../src/ports/clock.ts'
import { createEngineWorld, type EngineWorld } from './support/engine-world.ts'
import { createManualClock } from './support/manual-clock.ts'

const SERIES = 'KXBTC15M'
/** A quarter hour in EST: the contest KXBTC15M-26NOV221415-15 opens here. */
const Q = Date.parse('2026-11-22T19:00:00Z')
const TICKER = formatTicker(SERIES, Q + QUARTER_MS)
const NEXT_TICKER = formatTicker(SERIES, Q + 2 * QUARTER_MS)
/** No fixed tick inside a test: whatever wakes the engine is the boundary. */
const NO_FIXED_TICK = 3_600_000

describe('engine wakes at boundaries', () => {
  let w: EngineWorld | undefined
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }))
  afterEach(async () => {
    mock.timers.reset()
    await w?.close()
    w = undefined
  })

  /** A wall clock that counts its reads: every tick reads it first, to check the lease. */
  function countingWall(wall: Clock): Clock & { reads: number } {
    const counted = {
      reads: 0,
      now: () => {
        counted.reads++
        return wall.now()
      },
    }
    return counted
  }

  /** Moves the timers `wallMs` on; true when that started a tick of the engine's own (which tick() then joins). */
  async function wakes(engine: Engine, wall: { reads: number }, wallMs: number): Promise<boolean> {
    const before = wall.reads
    mock.timers.tick(wallMs)
    const woke = wall.reads > before
    await engine.tick()
    return woke
  }

  it('starts a minute’s reading at the minute’s boundary on a wall-speed clock', async () => {
    w = await createEngineWorld({ seed: 4, start: Q + MINUTE_MS + 100 })
    const wall = countingWall(w.time)
    const engine = w.engine({ wallClock: wall, tickMs: NO_FIXED_TICK })
    await engine.start()
    const signals = async () => (await w?.store.getContest(TICKER))?.signals ?? []
    assert.deepEqual(
      (await signals()).map((s) => s.minute),
      [1],
    )

    w.time.set(Q + 2 * MINUTE_MS - 1)
    const before = wall.reads
    mock.timers.tick(MINUTE_MS - 101)
    assert.equal(wall.reads, before, 'woke before the boundary')

    w.time.set(Q + 2 * MINUTE_MS)
    assert.equal(await wakes(engine, wall, 1), true, 'did not wake at the boundary')
    const minute2 = (await signals()).find((s) => s.minute === 2)
    assert.ok(minute2)
    assert.equal(minute2.raisedAt, Q + 2 * MINUTE_MS)
  })

  it('closes a window and opens the next at the quarter boundary, with no tick between', async () => {
    w = await createEngineWorld({ seed: 4, start: Q + QUARTER_MS - 100 })
    const wall = countingWall(w.time)
    const engine = w.engine({ wallClock: wall, tickMs: NO_FIXED_TICK })
    await engine.start()
    assert.equal((await w.store.getContest(TICKER))?.state, 'live')
    assert.equal(await w.store.getContest(NEXT_TICKER), null)

    w.time.set(Q + QUARTER_MS)
    assert.equal(await wakes(engine, wall, 100), true, 'did not wake at the close')
    assert.equal((await w.store.getContest(TICKER))?.state, 'expired')
    const next = await w.store.getContest(NEXT_TICKER)
    assert.equal(next?.state, 'live')
    assert.equal(next?.opensAt, Q + QUARTER_MS)
  })

  it('wakes at the boundary of the accelerated clock, in wall time divided by its speed', async () => {
    w = await createEngineWorld({ seed: 4, start: Q + MINUTE_MS + 100 })
    const wallTime = createManualClock(0)
    const wall = countingWall(wallTime)
    const engine = w.engine({ wallClock: wall, clockSpeed: 60, tickMs: NO_FIXED_TICK })
    await engine.start()

    // 59.9 virtual seconds to minute 2: 998.33 wall ms, so the wake is 999 wall ms away
    const before = wall.reads
    wallTime.set(998)
    w.time.set(Q + 2 * MINUTE_MS - 20)
    mock.timers.tick(998)
    assert.equal(wall.reads, before, 'woke before the boundary')

    wallTime.set(999)
    w.time.set(Q + 2 * MINUTE_MS + 40)
    assert.equal(await wakes(engine, wall, 1), true, 'did not wake at the boundary')
    const minute2 = (await w.store.getContest(TICKER))?.signals.find((s) => s.minute === 2)
    assert.equal(minute2?.raisedAt, Q + 2 * MINUTE_MS + 40)
  })

  it('still ticks every tickMs between boundaries', async () => {
    w = await createEngineWorld({ seed: 4, start: Q + MINUTE_MS + 100 })
    const wall = countingWall(w.time)
    const engine = w.engine({ wallClock: wall, tickMs: 250 })
    await engine.start()
    w.time.set(Q + MINUTE_MS + 350)
    const before = wall.reads
    mock.timers.tick(249)
    assert.equal(wall.reads, before)
    assert.equal(await wakes(engine, wall, 1), true)
  })
})
