// The engine tests' world: a temporary SQLite store, the simulator, a manual clock, a recording
// logger and notifier. Each test builds its own world and closes it.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createEngine, type Engine, type EngineDeps } from '../../src/engine/engine.ts'
import { withParams } from '../../src/feeds/sim/sim-params.ts'
import { createSimPriceFeed, type SimPriceFeed } from '../../src/feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../../src/feeds/sim/sim-venue.ts'
import { sharedSimWorld } from '../../src/feeds/sim/sim-world.ts'
import { createReadingModel, DEFAULT_MODEL } from '../../src/model/models.ts'
import type { Logger } from '../../src/ports/logger.ts'
import type { Store } from '../../src/ports/store.ts'
import type { Venue } from '../../src/ports/venue.ts'
import { createMemoryEventNotifier } from '../../src/store/memory/memory-event-notifier.ts'
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { createManualClock, type ManualClock } from './manual-clock.ts'

export type RecordingLogger = Logger & { errors: unknown[]; warnings: unknown[] }

export function createRecordingLogger(): RecordingLogger {
  const errors: unknown[] = []
  const warnings: unknown[] = []
  return {
    errors,
    warnings,
    info() {},
    debug() {},
    warn: (obj, msg) => warnings.push({ obj, msg }),
    error: (obj, msg) => errors.push({ obj, msg }),
  }
}

const WRITES = new Set([
  'openContest',
  'addSignal',
  'expireContest',
  'settleContest',
  'importHistory',
  'appendEvent',
  'pruneEvents',
  'recordEngineHeartbeat',
])

/** The same store, with a log of the methods called through this handle: all of them, and the writes. */
export function withCallLog(store: Store): { store: Store; calls: string[]; writes: string[] } {
  const calls: string[] = []
  const writes: string[] = []
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof prop !== 'string' || typeof value !== 'function') return value
      return (...args: unknown[]) => {
        calls.push(prop)
        if (WRITES.has(prop)) writes.push(prop)
        return value.apply(target, args)
      }
    },
  })
  return { store: proxy, calls, writes }
}

export type EngineWorld = {
  store: Store
  feed: SimPriceFeed
  venue: Venue
  time: ManualClock
  logger: RecordingLogger
  /** every seq the engines notified, in order */
  notified: number[]
  engine(overrides?: Partial<EngineDeps>): Engine
  close(): Promise<void>
}

/**
 * The sandbox these worlds run: books on both sides every minute. The tests follow the engine's flow
 * (a signal a minute); the default crowd's one-sided books near the extremes are the reading's
 * business, tested there. A tape compared with an engine world is written from the same params.
 */
export const ENGINE_WORLD_PARAMS = withParams({ crowd: { oneSidedBelow: 0 } })

export async function createEngineWorld(opts: {
  seed: number
  start: number
  series?: readonly string[]
  backfillDays?: number
}): Promise<EngineWorld> {
  const series = opts.series ?? ['KXBTC15M']
  const dir = mkdtempSync(join(tmpdir(), 'contest-signals-engine-'))
  const time = createManualClock(opts.start)
  const store = createSqliteStore(join(dir, 'store.db'), { wallClock: time })
  await store.migrate()
  const world = sharedSimWorld(opts.seed, ENGINE_WORLD_PARAMS)
  const feed = createSimPriceFeed({ seed: opts.seed, world })
  const venue = createSimVenue({ seed: opts.seed, world, feed, series })
  const notifier = createMemoryEventNotifier()
  const notified: number[] = []
  await notifier.subscribe((seq) => {
    if (seq !== null) notified.push(seq)
  })
  const logger = createRecordingLogger()
  const engines: Engine[] = []
  return {
    store,
    feed,
    venue,
    time,
    logger,
    notified,
    engine(overrides = {}) {
      const engine = createEngine({
        store,
        venue,
        feed,
        notifier,
        series,
        clock: time,
        wallClock: time,
        backfillDays: opts.backfillDays ?? 0,
        retentionMs: 48 * 3_600_000,
        // long enough that no timer fires while a test drives tick() by hand
        tickMs: 3_600_000,
        model: createReadingModel(DEFAULT_MODEL),
        logger,
        ...overrides,
      })
      engines.push(engine)
      return engine
    },
    async close() {
      for (const e of engines) await e.stop()
      await notifier.close()
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
