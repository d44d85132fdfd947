// Restart safety: the process is killed with SIGKILL in the middle of a contest and started again on
// the same SQLite file. Nothing may be duplicated or lost, and a stream resumed across the restart
// must see every event exactly once.
import assert from 'node:assert/strict'
import path from 'node:path'
import { describe, it } from 'node:test'
import type { ContestView } from '../src/domain/contest-view.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { storedServiceClock } from '../src/main/service-clock.ts'
import { systemClock } from '../src/main/system-clock.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { bootstrapKeyFrom, startProcess, tempDir } from './support/service-process.ts'
import { openStream, type SseClient } from './support/sse-client.ts'
import { MONDAY_NOON_NEW_YORK, pinTimeline } from './support/timeline.ts'
import { waitFor, waitUntil } from './support/wait.ts'

// 120× virtual time: a contest minute passes every 0.5 s, a contest every 7.5 s.
const SPEED = 120

function eventKey(e: { id?: string; event?: string }) {
  return `${e.id} ${e.event}`
}

describe('restart after SIGKILL', () => {
  it('resumes the contest without duplicates, settles what expired while down, and resumes streams with no gap', async () => {
    const tmp = tempDir()
    const env = {
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: '0',
      SIM_SEED: '5',
      SIM_SPEED: String(SPEED),
      SIM_BACKFILL_DAYS: '0',
      LOG_LEVEL: 'info',
    }
    // the timeline starts on a Monday noon, away from the venue's weekly pause
    const pinned = createSqliteStore(path.join(tmp.dir, 'cs.db'))
    await pinned.migrate()
    await pinTimeline(pinned, MONDAY_NOON_NEW_YORK, SPEED)
    await pinned.close()
    const first = startProcess(['serve'], { ...env, LOG_LEVEL: 'info' })
    let second: typeof first | null = null
    const streams: SseClient[] = []
    try {
      const url1 = await first.url
      const key = await first.bootstrapKey
      const headers = { Authorization: `Bearer ${key}` }
      // Start from a known id (a resume, not a snapshot) so a replay from it is the exact truth.
      const probe = await openStream(`${url1}/v1/stream/contests?series=KXBTC15M`, { key })
      const start = await waitFor('a first event', () => probe.events.at(-1)?.id, 20_000)
      probe.close()
      const before = await openStream(`${url1}/v1/stream/contests?series=KXBTC15M`, {
        key,
        lastEventId: start,
      })
      streams.push(before)
      // Let a settlement and the next opening pass, then kill while a contest has signals.
      await waitFor(
        'a settlement on the stream',
        () => (before.events.some((e) => e.event === 'contest.settled') ? true : undefined),
        20_000,
      )
      const liveAtKill = await waitFor(
        'a live contest with signals',
        async () => {
          const res = await fetch(`${url1}/v1/contests/active?series=KXBTC15M`, { headers })
          const c = res.status === 200 ? ((await res.json()) as ContestView) : null
          return c && c.signals.length >= 2 && c.signals.length <= 10 ? c : undefined
        },
        20_000,
        100,
      )
      first.child.kill('SIGKILL')
      await first.exited
      await before.ended
      const lastSeen = before.events[before.events.length - 1]!.id
      assert.ok(lastSeen)

      // Down until, on the deployment's timeline, the contest has expired and the venue's result is
      // out (at most 90 s after expiry), so the start must settle it.
      const stored = createSqliteStore(env.DATABASE_URL.slice('sqlite:'.length))
      const deploymentClock = await storedServiceClock(stored, systemClock)
      await stored.close()
      const resultOut = Date.parse(liveAtKill.window.expires_at) + 90_000
      await waitUntil(() => deploymentClock.now() > resultOut, 'the contest to expire while down', 30_000)
      // started as `npm start` restarts, without SIM_SEED: the store's timeline keeps its seed, so the
      // contest struck before the kill settles on the same price path
      const { SIM_SEED: _, ...restartEnv } = env
      second = startProcess(['serve'], restartEnv)
      const url2 = await second.url
      assert.equal(bootstrapKeyFrom(second.stdout()), null)

      // The contest that was live at the kill is settled on start, its signals graded.
      const settled = await waitFor(
        'the interrupted contest to be settled',
        async () => {
          const res = await fetch(`${url2}/v1/contests/${liveAtKill.ticker}`, { headers })
          const c = (await res.json()) as ContestView
          return c.state === 'settled' ? c : undefined
        },
        10_000,
        100,
      )
      assert.ok(settled.signals.length >= liveAtKill.signals.length)
      assert.equal(settled.strike_price_dollars, liveAtKill.strike_price_dollars)
      assert.ok(settled.settled_price_dollars !== null && settled.strike_price_dollars !== null)
      assert.equal(
        settled.settled_side,
        settled.settled_price_dollars >= settled.strike_price_dollars ? 'up' : 'down',
        'settled on the path it was struck on (a tie goes up)',
      )
      // and it is seed 5's own settlement, the one a run without the restart gives
      const world = sharedSimWorld(Number(env.SIM_SEED))
      assert.equal(settled.settled_price_dollars, world.contestOf(settled.ticker)!.settlementCents / 100)
      for (const s of settled.signals) {
        const expected: string =
          settled.settled_side === null ? 'void' : s.side === settled.settled_side ? 'win' : 'loss'
        assert.equal(s.outcome, expected)
      }

      // A stream resumed across the restart, and a replay from the very first event as the truth.
      const after = await openStream(`${url2}/v1/stream/contests?series=KXBTC15M`, {
        key,
        lastEventId: lastSeen,
      })
      streams.push(after)
      await waitFor(
        'a settlement after the restart',
        () => (after.events.some((e) => e.event === 'contest.settled') ? true : undefined),
        20_000,
      )
      after.close()
      const seen = [...before.events, ...after.events]
      const ids = seen.map((e) => e.id!)
      assert.equal(new Set(ids).size, ids.length, 'no event is delivered twice')
      assert.deepEqual([...ids].sort(), ids, 'ids strictly increase across the restart')

      const truth = await openStream(`${url2}/v1/stream/contests?series=KXBTC15M`, {
        key,
        lastEventId: start,
      })
      streams.push(truth)
      const lastId = ids[ids.length - 1]!
      await waitFor(
        'the replay to reach the last event seen',
        () => (truth.events.some((e) => e.id === lastId) ? true : undefined),
        10_000,
      )
      truth.close()
      const truthUpTo = truth.events.slice(0, truth.events.findIndex((e) => e.id === lastId) + 1)
      assert.deepEqual(seen.map(eventKey), truthUpTo.map(eventKey), 'no gap across the restart')

      // At most one signal per contest minute, everywhere.
      const history = (await (
        await fetch(`${url2}/v1/contests?series=KXBTC15M&limit=100`, { headers })
      ).json()) as { contests: ContestView[] }
      assert.ok(history.contests.length >= 2)
      for (const c of history.contests) {
        const opens = Date.parse(c.window.opens_at)
        const minutes = c.signals.map((s) => Math.floor((Date.parse(s.raised_at) - opens) / 60_000))
        assert.equal(new Set(minutes).size, minutes.length, `${c.ticker} has one signal per minute`)
        assert.ok(minutes.every((m) => m >= 1 && m <= 14))
      }
    } finally {
      for (const s of streams) s.close()
      if (first.child.exitCode === null && first.child.signalCode === null) await first.kill('SIGKILL')
      if (second) await second.kill('SIGTERM')
      tmp.remove()
    }
  })
})
