// The engine role (decisions §1): while it holds the store's engine lease it follows each series on
// the venue, raises one reading per contest minute, expires and settles contests, and keeps the
// store's heartbeat and event retention. Ticks never overlap, and a failing step is logged and
// retried on the next tick instead of stopping the loop.

import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { encodeFeedStatus, FEED_STATUS_SETTING } from '../domain/feed-status.ts'
import type { ReadingModel } from '../domain/reading-model.ts'
import type { Clock } from '../ports/clock.ts'
import type { EventNotifier } from '../ports/event-notifier.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import type { PriceFeed, Venue } from '../ports/venue.ts'
import { BackfillStopped, backfillHistory } from './backfill.ts'
import { advanceContest, openCurrentContest } from './contest-steps.ts'
import { createCrowdLagKeeper } from './crowd-lag-keeping.ts'
import type { StepContext } from './engine-context.ts'
import { createLeadership } from './leadership.ts'
import { recordMissedWindows } from './missed-windows.ts'
import { DEFAULT_READING_MAX_LATE_MS } from './reading.ts'
import { createRepeatedErrors } from './repeated-errors.ts'
import { createSkippedReadings, type SkipObserver } from './skipped-readings.ts'
import { nextBoundaryAfter, type Window, wakeDelayMs } from './wake-schedule.ts'

export type EngineDeps = {
  store: Store
  venue: Venue
  feed: PriceFeed
  notifier: EventNotifier
  series: readonly string[]
  /** service time (virtual when SIM_SPEED > 1): contest windows, readings, settlement */
  clock: Clock
  /** wall time: lease, heartbeat, event retention, tick pacing */
  wallClock: Clock
  /** days of history to generate on a first start with an empty store (0 = none) */
  backfillDays: number
  /** events appended longer ago than this (wall ms) are pruned */
  retentionMs: number
  /** this engine's name on the lease; unique per process by default */
  holderId?: string
  /** wall ms between ticks, default 250; the engine also wakes at each boundary (wake-schedule.ts) */
  tickMs?: number
  /** service ms per wall ms (SIM_SPEED; default 1): how far away in wall time a boundary of `clock` is */
  clockSpeed?: number
  /** engine lease time to live in wall ms, default 6000 */
  leaseTtlMs?: number
  logger: Logger
  /** the pricing model (MODEL) */
  model: ReadingModel
  /** READING_MAX_LATE_S in ms; default 10 s (decisions §11) */
  readingMaxLateMs?: number
  /** told once per contest minute that raised no reading (for metrics) */
  onSkippedReading?: SkipObserver
  /** told once a backfill has finished (the runtime hands back the memory it took) */
  afterBackfill?: () => void
  /**
   * aborted when a stop is asked for while the engine starts: a backfill stops at its next window
   * (what it wrote stays, and the next start goes on with it)
   */
  stopping?: AbortSignal
}

export type Engine = {
  /**
   * Runs the first tick (with any backfill), then keeps ticking every tickMs, and at each boundary of
   * the service clock (a window's open or close, a reading's minute), until stop().
   */
  start(): Promise<void>
  /** Stops ticking, waits for the running tick and releases the lease. */
  stop(): Promise<void>
  /** One pass of the loop; a call while a tick runs joins that tick instead of starting another. */
  tick(): Promise<void>
  isLeader(): boolean
  /** Counts the minutes still being retried as skipped, with their reasons (a replay's end; stop() does it too). */
  flushSkipped(): void
  /** The last tick left a minute waiting for an input a moment may bring: tick again soon, as live. */
  retryDue(): boolean
  /**
   * Stores the model state the engine measures (the crowd lag) as it stands, so an engine going on
   * from this instant reads as this one would (a replay's checkpoint; stop() does it too).
   */
  keepState(): Promise<void>
}

export const DEFAULT_TICK_MS = 250
export const DEFAULT_LEASE_TTL_MS = 6_000
export const HEARTBEAT_EVERY_MS = 5_000
export const PRUNE_EVERY_MS = 3_600_000
/** Backfill attempts before the engine gives up on history and goes live without it. */
const STARTUP_ATTEMPTS = 3
/** Where a first start's backfill stands in the store: `running`, then `done`. */
const BACKFILL_SETTING = 'engine.backfill'

export function createEngine(deps: EngineDeps): Engine {
  const { store, venue, clock, wallClock, logger } = deps
  const tickMs = deps.tickMs ?? DEFAULT_TICK_MS
  const repeated = createRepeatedErrors(logger, () => wallClock.now())
  const holderId = deps.holderId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  const ctx: StepContext = {
    store,
    venue,
    feed: deps.feed,
    notifier: deps.notifier,
    logger,
    skips: createSkippedReadings(logger, deps.onSkippedReading),
    model: deps.model,
    maxLateMs: deps.readingMaxLateMs ?? DEFAULT_READING_MAX_LATE_MS,
    basisCache: new Map(),
    crowdLags: { model: deps.model, bySeries: new Map() },
  }
  const leadership = createLeadership({
    store,
    holderId,
    ttlMs: deps.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
    logger,
    errors: repeated,
  })

  const crowdLags = createCrowdLagKeeper({ store, lags: ctx.crowdLags.bySeries, logger })

  const knownTickers = new Set<string>()
  let startupPending = false
  let lagsPending = false
  let startupFailures = 0
  let lastHeartbeat = Number.NEGATIVE_INFINITY
  let lastPrune = Number.NEGATIVE_INFINITY
  let inFlight: Promise<void> | null = null
  let timer: NodeJS.Timeout | undefined
  let running = false
  // the service instant the last tick began and the live windows it saw: the next wake's boundary
  let tickBegan = Number.NEGATIVE_INFINITY
  let liveWindows: Window[] = []

  /**
   * Run once per leadership term, on a venue that answers for the past (the simulator): backfill an
   * empty store, or go on with a backfill a kill cut short; else record the windows that passed
   * while no engine led. Unsettled contests are finished by the ticks.
   */
  async function startup(): Promise<void> {
    if (!venue.supportsHistory) return
    // 'running' from before a backfill's first write until after its last: a kill leaves it so
    const cutShort = (await store.getSetting(BACKFILL_SETTING)) === 'running'
    if (deps.backfillDays > 0 && (cutShort || (await store.countContests()) === 0)) return backfill(cutShort)
    const recorded = await recordMissedWindows(ctx, deps.series, clock.now())
    if (recorded > 0)
      logger.warn({ windows: recorded }, 'windows that passed while no engine led recorded, with no signals')
  }

  async function backfill(cutShort: boolean): Promise<void> {
    const started = wallClock.now()
    const now = clock.now()
    await store.putSetting(BACKFILL_SETTING, 'running')
    logger.info(
      { days: deps.backfillDays, series: deps.series, ...(cutShort ? { goingOn: true } : {}) },
      cutShort ? 'backfilling history: going on with one a stop cut short' : 'backfilling history',
    )
    const result = await backfillHistory(ctx, {
      series: deps.series,
      now,
      days: deps.backfillDays,
      ...(deps.stopping ? { stopping: deps.stopping } : {}),
      keepLease: async () => {
        const kept = (await leadership.check(wallClock.now())) !== 'lost' && isLeader()
        if (kept) await beat()
        return kept
      },
    })
    await store.putSetting(BACKFILL_SETTING, 'done')
    logger.info({ ...result, ms: wallClock.now() - started }, 'history backfilled')
    deps.afterBackfill?.()
  }

  /**
   * The heartbeat says a leader is alive, so it beats before a backfill and during one (from its
   * lease checks): a first start filling days of history is working, not stale.
   */
  async function beat(): Promise<void> {
    const wallNow = wallClock.now()
    if (wallNow - lastHeartbeat < HEARTBEAT_EVERY_MS) return
    await step('heartbeat', async () => {
      await store.recordEngineHeartbeat(wallNow)
      // beside the heartbeat, so every api replica's health check sees the sources this engine sees,
      // venue by venue (decisions §14)
      await store.putSetting(FEED_STATUS_SETTING, encodeFeedStatus(venue.statuses(), deps.feed.sources()))
      lastHeartbeat = wallNow
    })
  }

  async function step(name: string, fn: () => Promise<void>, fields: object = {}): Promise<void> {
    try {
      await fn()
    } catch (err) {
      repeated.error({ err, step: name, ...fields }, `engine step failed: ${name}`)
    }
  }

  async function runTick(): Promise<void> {
    tickBegan = clock.now()
    liveWindows = []
    const change = await leadership.check(wallClock.now())
    if (change === 'gained') {
      logger.info({ holderId }, 'engine is the leader')
      knownTickers.clear()
      startupPending = true
      lagsPending = true
      startupFailures = 0
      lastHeartbeat = Number.NEGATIVE_INFINITY
    } else if (change === 'lost') {
      logger.warn({ holderId }, 'engine is no longer the leader; standing by')
    }
    if (!isLeader()) return

    // before the backfill's readings, which measure on from what the last leader had
    if (lagsPending)
      await step('restore crowd lags', async () => {
        await crowdLags.restore(deps.series, clock.now())
        lagsPending = false
      })

    if (startupPending) {
      await beat()
      try {
        await startup()
        startupPending = false
      } catch (err) {
        if (err instanceof BackfillStopped) {
          logger.info('backfill stopped by the stop asked for; the next start goes on with it')
          return
        }
        startupFailures++
        const givingUp = startupFailures >= STARTUP_ATTEMPTS
        logger.error(
          { err, attempt: startupFailures },
          givingUp ? 'backfill failed; going live without it' : 'backfill failed; retrying',
        )
        if (!givingUp) return
        startupPending = false
      }
      if (!isLeader()) return
    }

    const now = clock.now()
    // existing contests first, so at a quarter boundary the log reads: old expired, new opened
    await step('advance', async () => {
      for (const contest of await store.listUnsettled()) {
        if (!isLeader()) return
        if (contest.state === 'live') liveWindows.push(contest)
        await step('advance contest', () => advanceContest(ctx, contest, now), { ticker: contest.ticker })
      }
    })
    for (const series of deps.series) {
      if (!isLeader()) break
      await step(
        'open',
        async () => {
          const opened = await openCurrentContest(ctx, series, now, knownTickers)
          if (opened) liveWindows.push(opened)
          // opened late (after a restart): read the current minute now rather than next tick
          if (opened) await advanceContest(ctx, opened, now)
        },
        { series },
      )
    }

    if (isLeader()) await step('keep crowd lags', () => crowdLags.save(false))
    await beat()
    const wallNow = wallClock.now()
    if (wallNow - lastPrune >= PRUNE_EVERY_MS) {
      await step('prune', async () => {
        const pruned = await store.pruneEvents(wallNow - deps.retentionMs)
        lastPrune = wallNow
        if (pruned > 0) logger.info({ pruned }, 'pruned old events')
      })
    }
  }

  async function keepState(): Promise<void> {
    if (isLeader()) await crowdLags.save(true)
  }

  function isLeader(): boolean {
    return leadership.isLeader(wallClock.now())
  }

  function tick(): Promise<void> {
    if (!inFlight) {
      inFlight = runTick()
        .catch((err: unknown) => repeated.error({ err }, 'engine tick failed'))
        .finally(() => {
          inFlight = null
        })
    }
    return inFlight
  }

  function schedule(): void {
    if (!running) return
    const speed = deps.clockSpeed ?? 1
    const delay = wakeDelayMs({ tickBegan, now: clock.now(), windows: liveWindows, speed, tickMs })
    timer = setTimeout(() => {
      // a timer may fire a moment before its delay has passed on the clock (Node times it from the
      // loop's cached time): wait out the rest of the way rather than tick just before the boundary
      if (delay < tickMs && clock.now() < nextBoundaryAfter(tickBegan, liveWindows)) return schedule()
      void tick().then(schedule)
    }, delay)
  }

  return {
    async start() {
      if (running) return
      running = true
      await tick()
      schedule()
    },
    async stop() {
      running = false
      clearTimeout(timer)
      if (inFlight) await inFlight
      ctx.skips.flush()
      await step('keep crowd lags', keepState)
      try {
        await leadership.release()
      } catch (err) {
        logger.error({ err }, 'releasing the engine lease failed')
      }
    },
    tick,
    isLeader,
    flushSkipped: () => ctx.skips.flush(),
    retryDue: () => ctx.skips.retryDue(),
    keepState,
  }
}
