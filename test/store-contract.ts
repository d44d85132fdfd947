// The Store port's contract: one suite that every store implementation (SQLite, PostgreSQL) must pass.
import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { describe, it } from 'node:test'
import { CONTEST_MS, type Contest, settleContest } from '../src/domain/contest.ts'
import { toContestView, toSignalView } from '../src/domain/contest-view.ts'
import type { NewEvent, StoredEvent } from '../src/domain/events.ts'
import type { Clock } from '../src/ports/clock.ts'
import type { Store } from '../src/ports/store.ts'
import {
  BASE,
  DOWN,
  expiringAt,
  makeContest,
  makeKey,
  makeSettledContest,
  makeSignal,
  newSeries,
  polymarketVenue,
  SERIES,
  suffix,
  UP,
} from './support/contest-fixtures.ts'
import { createManualClock } from './support/manual-clock.ts'

export type StoreFactory = {
  /** A fresh, empty store of its own; the suite migrates it and closes it. */
  create(opts?: { wallClock?: Clock }): Promise<Store>
  /** A second handle on the data of `store` (the same file or schema), not yet migrated. */
  reopen(store: Store): Promise<Store>
  /** Removes whatever create() made, after the store is closed. */
  destroy?(store: Store): Promise<void>
}

function customEvent(overrides: Partial<NewEvent> = {}): NewEvent {
  return { type: 'key.changed', series: '', ticker: '', data: JSON.stringify({ id: suffix() }), ...overrides }
}

async function openWith(store: Store, overrides: Partial<Contest> = {}): Promise<Contest> {
  const contest = makeContest(overrides)
  assert.ok(await store.openContest(contest))
  return contest
}

async function allEvents(store: Store): Promise<StoredEvent[]> {
  return store.eventsAfter(0, 10_000)
}

export function runStoreContract(name: string, factory: StoreFactory): void {
  /** Each test owns a fresh, migrated store and closes it whatever happens. */
  function test(
    title: string,
    body: (store: Store) => Promise<void>,
    opts: { wallClock?: Clock } = {},
  ): void {
    it(title, async () => {
      const store = await factory.create(opts)
      try {
        await store.migrate()
        await body(store)
      } finally {
        await store.close()
        await factory.destroy?.(store)
      }
    })
  }

  describe(`${name} store contract`, () => {
    describe('migrate', () => {
      test('can run again without error or loss of data', async (store) => {
        const contest = await openWith(store)
        const key = makeKey()
        await store.createKey(key)
        const epoch = await store.epoch()
        await store.migrate()
        await store.migrate()
        assert.deepEqual(await store.getContest(contest.ticker), contest)
        assert.deepEqual(await store.listKeys(), [key])
        assert.equal(await store.epoch(), epoch)
      })
    })

    describe('epoch', () => {
      test('is eight characters of [0-9a-z] and stable across calls', async (store) => {
        const epoch = await store.epoch()
        assert.match(epoch, /^[0-9a-z]{8}$/)
        assert.equal(await store.epoch(), epoch)
      })

      test('differs between two stores', async (store) => {
        const other = await factory.create()
        try {
          await other.migrate()
          assert.notEqual(await other.epoch(), await store.epoch())
        } finally {
          await other.close()
          await factory.destroy?.(other)
        }
      })
    })

    describe('ping and close', () => {
      test('ping resolves on an open store', async (store) => {
        await store.ping()
      })

      test('ping rejects once the store is closed', async (store) => {
        await store.close()
        await assert.rejects(store.ping())
      })

      test('close can be called twice', async (store) => {
        await store.close()
        await store.close()
      })
    })

    describe('getContest', () => {
      test('returns null for an unknown ticker', async (store) => {
        assert.equal(await store.getContest(`${SERIES}-${suffix()}`), null)
      })

      test('returns the contest exactly as it was opened, a null strike included', async (store) => {
        const contest = await openWith(store, { strikePriceDollars: null })
        assert.deepEqual(await store.getContest(contest.ticker), contest)
      })

      test('keeps each venue’s references with the contest, Polymarket’s tokens by outcome', async (store) => {
        const kalshi = await openWith(store)
        const slug = `btc-updown-15m-${suffix()}`
        const poly = await openWith(store, {
          ticker: slug,
          series: 'btc-updown-15m',
          venue: polymarketVenue(slug),
        })
        const settled = makeSettledContest({ series: 'btc-updown-15m', venue: polymarketVenue(`${slug}-2`) })
        await store.importHistory([settled])
        assert.deepEqual((await store.getContest(kalshi.ticker))?.venue, kalshi.venue)
        assert.deepEqual((await store.getContest(poly.ticker))?.venue, poly.venue)
        assert.deepEqual((await store.getContest(settled.ticker))?.venue, settled.venue)
        const opened = await store.contestHistoryEvents(poly.ticker, await store.latestSeq())
        assert.deepEqual(JSON.parse(opened[0]!.data).venue_refs, toContestView(poly).venue_refs)
      })

      test('does not resolve a truncated ticker', async (store) => {
        const contest = await openWith(store)
        assert.equal(await store.getContest(contest.ticker.slice(0, -1)), null)
      })

      test('lists signals oldest first whatever order they were added in', async (store) => {
        const contest = await openWith(store)
        for (const minute of [5, 2, 9]) await store.addSignal(makeSignal(contest, { minute }))
        const stored = await store.getContest(contest.ticker)
        assert.deepEqual(
          stored?.signals.map((s) => s.minute),
          [2, 5, 9],
        )
      })
    })

    describe('lookups by text no contest can hold', () => {
      // a request's ticker or series is whatever the client sent: U+0000 (`%00`) included
      test('a ticker or series with U+0000 finds nothing, on every read, rather than failing', async (store) => {
        const contest = await openWith(store)
        for (const text of ['\u0000', `${contest.ticker}\u0000`, `${contest.series}\u0000x`]) {
          assert.equal(await store.getContest(text), null)
          assert.equal(await store.getLiveContest(text), null)
          assert.deepEqual(await store.listSettled({ series: text, limit: 20 }), [])
          assert.deepEqual(await store.listGradedReadings({ series: text }), [])
          assert.equal(await store.countContests(text), 0)
          assert.deepEqual(await store.eventsAfter(0, 10, { series: text }), [])
          assert.deepEqual(await store.eventsAfter(0, 10, { ticker: text }), [])
          assert.deepEqual(await store.contestHistoryEvents(text, 1_000_000), [])
        }
        // and the store still answers
        assert.deepEqual(await store.getContest(contest.ticker), contest)
      })
    })

    describe('openContest', () => {
      test('stores a live contest and returns its contest.opened event', async (store) => {
        const contest = makeContest()
        const event = await store.openContest(contest)
        assert.ok(event)
        assert.equal(event.type, 'contest.opened')
        assert.equal(event.series, contest.series)
        assert.equal(event.ticker, contest.ticker)
        assert.equal(event.data, JSON.stringify(toContestView(contest)))
        assert.ok(event.seq > 0)
        assert.equal(await store.latestSeq(), event.seq)
        assert.ok(Math.abs(event.appendedAt - Date.now()) < 60_000, 'appendedAt is wall-clock ms')
        assert.deepEqual(await store.eventsAfter(event.seq - 1, 10), [event])
        assert.deepEqual(await store.getContest(contest.ticker), contest)
      })

      test('returns null and appends no event when the ticker already exists', async (store) => {
        const contest = await openWith(store)
        const seq = await store.latestSeq()
        assert.equal(await store.openContest({ ...contest, strikePriceDollars: 1 }), null)
        assert.equal(await store.latestSeq(), seq)
        assert.deepEqual(await store.getContest(contest.ticker), contest)
      })
    })

    describe('addSignal', () => {
      test('returns signal.emitted carrying the signal and the contest including it', async (store) => {
        const contest = await openWith(store)
        const signal = makeSignal(contest, { minute: 3 })
        const event = await store.addSignal(signal)
        assert.ok(event)
        assert.equal(event.type, 'signal.emitted')
        assert.equal(event.series, contest.series)
        assert.equal(event.ticker, contest.ticker)
        const after = { ...contest, signals: [signal] }
        const expected = { signal: toSignalView(signal), contest: toContestView(after) }
        assert.equal(event.data, JSON.stringify(expected))
        assert.equal(await store.latestSeq(), event.seq)
        assert.deepEqual(await store.getContest(contest.ticker), after)
      })

      test('refuses a second signal for the same contest minute', async (store) => {
        const contest = await openWith(store)
        const first = makeSignal(contest, { minute: 4, side: 'up' })
        assert.ok(await store.addSignal(first))
        const seq = await store.latestSeq()
        const second = makeSignal(contest, { minute: 4, side: 'down', raisedAt: first.raisedAt + 500 })
        assert.equal(await store.addSignal(second), null)
        assert.equal(await store.latestSeq(), seq)
        assert.deepEqual((await store.getContest(contest.ticker))?.signals, [first])
      })

      test('accepts one signal for each minute, each snapshot holding all signals so far', async (store) => {
        const contest = await openWith(store)
        const events: StoredEvent[] = []
        for (const minute of [1, 2, 3]) {
          const event = await store.addSignal(makeSignal(contest, { minute }))
          assert.ok(event)
          events.push(event)
        }
        assert.ok(events[0]!.seq < events[1]!.seq && events[1]!.seq < events[2]!.seq)
        const last = JSON.parse(events[2]!.data) as { contest: { signals: unknown[] } }
        assert.equal(last.contest.signals.length, 3)
      })

      test('accepts the same minute on two different contests', async (store) => {
        const a = await openWith(store)
        const b = await openWith(store)
        assert.ok(await store.addSignal(makeSignal(a, { minute: 7 })))
        assert.ok(await store.addSignal(makeSignal(b, { minute: 7 })))
      })

      test('refuses a signal on an expired contest', async (store) => {
        const contest = await openWith(store)
        await store.expireContest(contest.ticker)
        const seq = await store.latestSeq()
        assert.equal(await store.addSignal(makeSignal(contest)), null)
        assert.equal(await store.latestSeq(), seq)
        assert.deepEqual((await store.getContest(contest.ticker))?.signals, [])
      })

      test('refuses a signal on a settled contest', async (store) => {
        const contest = await openWith(store)
        await store.settleContest(contest.ticker, UP)
        const seq = await store.latestSeq()
        assert.equal(await store.addSignal(makeSignal(contest)), null)
        assert.equal(await store.latestSeq(), seq)
        assert.deepEqual((await store.getContest(contest.ticker))?.signals, [])
      })

      test('returns null for an unknown ticker', async (store) => {
        const ghost = makeContest()
        assert.equal(await store.addSignal(makeSignal(ghost)), null)
        assert.equal(await store.latestSeq(), 0)
      })

      test('keeps a null model version', async (store) => {
        const contest = await openWith(store)
        const signal = makeSignal(contest, { modelVersion: null })
        await store.addSignal(signal)
        assert.deepEqual((await store.getContest(contest.ticker))?.signals, [signal])
      })
    })

    describe('expireContest', () => {
      test('moves a live contest to expired with a contest.expired event', async (store) => {
        const contest = await openWith(store)
        const signal = makeSignal(contest)
        await store.addSignal(signal)
        const event = await store.expireContest(contest.ticker)
        assert.ok(event)
        const expired: Contest = { ...contest, state: 'expired', signals: [signal] }
        assert.equal(event.type, 'contest.expired')
        assert.equal(event.ticker, contest.ticker)
        assert.equal(event.series, contest.series)
        assert.equal(event.data, JSON.stringify(toContestView(expired)))
        assert.deepEqual(await store.getContest(contest.ticker), expired)
      })

      test('returns null without an event for a settled or unknown contest', async (store) => {
        const settled = await openWith(store, { strikePriceDollars: null })
        await store.settleContest(settled.ticker, UP)
        const seq = await store.latestSeq()
        const revision = (c: Contest) => ({
          strikePriceDollars: 1,
          opensAt: c.opensAt,
          expiresAt: c.expiresAt + 1,
        })
        assert.equal(await store.reviseContest(settled.ticker, revision(settled)), null)
        assert.equal(await store.reviseContest(`${SERIES}-${suffix()}`, revision(settled)), null)
        assert.equal(await store.latestSeq(), seq)
        assert.equal((await store.getContest(settled.ticker))?.strikePriceDollars, null)
      })

      test('sets the strike of an expired contest published after its window, and nothing else', async (store) => {
        // Polymarket publishes its price to beat minutes after the window ends (decisions §14)
        const expired = await openWith(store, { strikePriceDollars: null })
        await store.expireContest(expired.ticker)
        const moved = {
          strikePriceDollars: 84_000.5,
          opensAt: expired.opensAt,
          expiresAt: expired.expiresAt + 1,
        }
        const event = await store.reviseContest(expired.ticker, moved)
        assert.equal(event?.type, 'contest.revised')
        const after = await store.getContest(expired.ticker)
        assert.equal(after?.state, 'expired')
        assert.equal(after?.strikePriceDollars, 84_000.5)
        assert.equal(after?.expiresAt, expired.expiresAt, 'the window of an ended contest is history')
        const seq = await store.latestSeq()
        assert.equal(await store.reviseContest(expired.ticker, { ...moved, strikePriceDollars: 1 }), null)
        assert.equal(await store.latestSeq(), seq)
      })
    })

    describe('settleContest', () => {
      test('grades each signal win or loss against the settled side', async (store) => {
        const contest = await openWith(store)
        const sides = ['up', 'down', 'up'] as const
        for (const [i, side] of sides.entries())
          await store.addSignal(makeSignal(contest, { minute: i + 1, side }))
        const before = (await store.getContest(contest.ticker))!
        const event = await store.settleContest(contest.ticker, UP)
        assert.ok(event)
        const settled = (await store.getContest(contest.ticker))!
        assert.deepEqual(settled, settleContest(before, UP))
        assert.deepEqual(
          settled.signals.map((s) => s.outcome),
          ['win', 'loss', 'win'],
        )
        assert.equal(settled.state, 'settled')
        assert.equal(settled.settledSide, 'up')
        assert.equal(settled.settledPriceDollars, UP.priceDollars)
        assert.equal(settled.voided, false)
        assert.equal(event.type, 'contest.settled')
        assert.equal(event.ticker, contest.ticker)
        assert.equal(event.series, contest.series)
        assert.equal(event.data, JSON.stringify(toContestView(settled)))
      })

      test('grades against a down result too', async (store) => {
        const contest = await openWith(store)
        await store.addSignal(makeSignal(contest, { minute: 1, side: 'up' }))
        await store.addSignal(makeSignal(contest, { minute: 2, side: 'down' }))
        await store.settleContest(contest.ticker, DOWN)
        const settled = (await store.getContest(contest.ticker))!
        assert.equal(settled.settledSide, 'down')
        assert.deepEqual(
          settled.signals.map((s) => s.outcome),
          ['loss', 'win'],
        )
      })

      test('settles an expired contest as well as a live one', async (store) => {
        const contest = await openWith(store)
        await store.addSignal(makeSignal(contest, { side: 'down' }))
        await store.expireContest(contest.ticker)
        assert.ok(await store.settleContest(contest.ticker, DOWN))
        const settled = (await store.getContest(contest.ticker))!
        assert.equal(settled.state, 'settled')
        assert.equal(settled.signals[0]?.outcome, 'win')
      })

      test('voids every signal of a voided contest and leaves settled_side null', async (store) => {
        const contest = await openWith(store)
        await store.addSignal(makeSignal(contest, { minute: 1, side: 'up' }))
        await store.addSignal(makeSignal(contest, { minute: 2, side: 'down' }))
        const event = await store.settleContest(contest.ticker, { kind: 'void', priceDollars: 97_100 })
        assert.ok(event)
        const settled = (await store.getContest(contest.ticker))!
        assert.equal(settled.state, 'settled')
        assert.equal(settled.voided, true)
        assert.equal(settled.settledSide, null)
        assert.equal(settled.settledPriceDollars, 97_100)
        assert.deepEqual(
          settled.signals.map((s) => s.outcome),
          ['void', 'void'],
        )
        assert.equal(event.data, JSON.stringify(toContestView(settled)))
      })

      test('accepts a settlement without an oracle price', async (store) => {
        const contest = await openWith(store)
        await store.settleContest(contest.ticker, { kind: 'settled', side: 'up', priceDollars: null })
        const settled = (await store.getContest(contest.ticker))!
        assert.equal(settled.settledSide, 'up')
        assert.equal(settled.settledPriceDollars, null)
      })

      test('returns null for a second settlement and never regrades signals', async (store) => {
        const contest = await openWith(store)
        await store.addSignal(makeSignal(contest, { side: 'up' }))
        assert.ok(await store.settleContest(contest.ticker, UP))
        const first = await store.getContest(contest.ticker)
        const seq = await store.latestSeq()
        assert.equal(await store.settleContest(contest.ticker, DOWN), null)
        assert.equal(await store.settleContest(contest.ticker, { kind: 'void', priceDollars: null }), null)
        assert.equal(await store.latestSeq(), seq)
        assert.deepEqual(await store.getContest(contest.ticker), first)
      })

      test('returns null for an unknown ticker', async (store) => {
        assert.equal(await store.settleContest(`${SERIES}-${suffix()}`, UP), null)
        assert.equal(await store.latestSeq(), 0)
      })
    })

    describe('getLiveContest', () => {
      test('returns the live contest of the series with its signals', async (store) => {
        const contest = await openWith(store, { series: newSeries() })
        const signal = makeSignal(contest)
        await store.addSignal(signal)
        assert.deepEqual(await store.getLiveContest(contest.series), { ...contest, signals: [signal] })
      })

      test('returns null when the series has only expired and settled contests', async (store) => {
        const series = newSeries()
        const a = await openWith(store, { series })
        const b = await openWith(store, { series, opensAt: BASE + CONTEST_MS })
        await store.expireContest(a.ticker)
        await store.settleContest(b.ticker, UP)
        assert.equal(await store.getLiveContest(series), null)
      })

      test('matches the series exactly, not as a prefix nor ignoring case', async (store) => {
        const series = newSeries()
        await openWith(store, { series })
        assert.equal(await store.getLiveContest(series.slice(0, -1)), null)
        assert.equal(await store.getLiveContest(series.toLowerCase()), null)
        assert.equal(await store.getLiveContest(`${series}X`), null)
      })

      test('ignores live contests of other series', async (store) => {
        const mine = await openWith(store, { series: newSeries() })
        await openWith(store, { series: newSeries() })
        assert.equal((await store.getLiveContest(mine.series))?.ticker, mine.ticker)
      })
    })

    describe('listSettled', () => {
      test('returns settled contests newest first, ticker descending on equal expiry', async (store) => {
        const series = newSeries()
        const t = BASE + 10 * CONTEST_MS
        const older = makeSettledContest(expiringAt(t - CONTEST_MS, { series, ticker: `${series}-C` }))
        const a = makeSettledContest(expiringAt(t, { series, ticker: `${series}-A` }))
        const b = makeSettledContest(expiringAt(t, { series, ticker: `${series}-B` }))
        await store.importHistory([a, older, b])
        const listed = await store.listSettled({ series, limit: 10 })
        assert.deepEqual(
          listed.map((c) => c.ticker),
          [b.ticker, a.ticker, older.ticker],
        )
        assert.deepEqual(listed, [b, a, older])
      })

      test('treats since and before as inclusive bounds on expiresAt', async (store) => {
        const series = newSeries()
        const times = [0, 1, 2, 3, 4].map((i) => BASE + i * CONTEST_MS)
        await store.importHistory(times.map((t) => makeSettledContest(expiringAt(t, { series }))))
        const expiries = async (q: { since?: number; before?: number }) =>
          (await store.listSettled({ series, limit: 100, ...q })).map((c) => c.expiresAt)
        assert.deepEqual(await expiries({ since: times[1], before: times[3] }), [
          times[3],
          times[2],
          times[1],
        ])
        assert.deepEqual(await expiries({ since: times[3] }), [times[4], times[3]])
        assert.deepEqual(await expiries({ before: times[1] }), [times[1], times[0]])
        assert.deepEqual(await expiries({ since: times[2], before: times[2] }), [times[2]])
        assert.deepEqual(await expiries({ since: times[4]! + 1 }), [])
      })

      test('returns at most limit contests, the newest ones', async (store) => {
        const series = newSeries()
        const times = [0, 1, 2, 3].map((i) => BASE + i * CONTEST_MS)
        await store.importHistory(times.map((t) => makeSettledContest(expiringAt(t, { series }))))
        const listed = await store.listSettled({ series, limit: 2 })
        assert.deepEqual(
          listed.map((c) => c.expiresAt),
          [times[3], times[2]],
        )
        assert.equal((await store.listSettled({ series, limit: 1 })).length, 1)
      })

      test('excludes live and expired contests and every other series', async (store) => {
        const series = newSeries()
        await openWith(store, { series, opensAt: BASE + 5 * CONTEST_MS })
        const expired = await openWith(store, { series, opensAt: BASE + 4 * CONTEST_MS })
        await store.expireContest(expired.ticker)
        const settled = await openWith(store, { series, opensAt: BASE + 3 * CONTEST_MS })
        await store.settleContest(settled.ticker, UP)
        const imported = makeSettledContest({ series, opensAt: BASE })
        await store.importHistory([
          imported,
          makeSettledContest({ series: newSeries() }),
          makeSettledContest({ series: `${series}X` }),
          makeSettledContest({ series: series.slice(0, -1) }),
        ])
        const listed = await store.listSettled({ series, limit: 100 })
        assert.deepEqual(
          listed.map((c) => c.ticker),
          [settled.ticker, imported.ticker],
        )
      })

      test('returns an empty list for a series with nothing settled', async (store) => {
        const series = newSeries()
        await openWith(store, { series })
        assert.deepEqual(await store.listSettled({ series, limit: 20 }), [])
      })

      test('carries every signal with its graded outcome', async (store) => {
        const series = newSeries()
        const contest = await openWith(store, { series })
        await store.addSignal(makeSignal(contest, { minute: 1, side: 'up' }))
        await store.addSignal(makeSignal(contest, { minute: 2, side: 'down' }))
        await store.settleContest(contest.ticker, DOWN)
        const [listed] = await store.listSettled({ series, limit: 20 })
        assert.deepEqual(
          listed?.signals.map((s) => [s.minute, s.outcome]),
          [
            [1, 'loss'],
            [2, 'win'],
          ],
        )
      })

      test('pages without a gap when the oldest expiresAt is passed as before, repeating exactly one row', async (store) => {
        const series = newSeries()
        const contests = [0, 1, 2, 3, 4, 5, 6].map((i) =>
          makeSettledContest(expiringAt(BASE + i * CONTEST_MS, { series })),
        )
        await store.importHistory(contests)
        const newestFirst = contests.map((c) => c.ticker).reverse()
        let page = await store.listSettled({ series, limit: 3 })
        const seen = page.map((c) => c.ticker)
        for (let guard = 0; guard < 10; guard++) {
          const oldest = page.at(-1)!
          const next = await store.listSettled({ series, limit: 3, before: oldest.expiresAt })
          assert.equal(next[0]?.ticker, oldest.ticker, 'the first row repeats the previous page’s last')
          const fresh = next.slice(1).map((c) => c.ticker)
          if (fresh.length === 0) break
          for (const t of fresh) assert.ok(!seen.includes(t), `${t} appears twice`)
          seen.push(...fresh)
          page = next
        }
        assert.deepEqual(seen, newestFirst)
      })
    })

    describe('listGradedReadings', () => {
      const inputs = {
        spotObservedAt: BASE + 60_450,
        bookObservedAt: BASE + 60_300,
        spotDollars: 97_130.5,
        freshSources: 3,
        upAskCents: 55,
        downAskCents: 47.5,
        sigmaPerMinute: 0.00061,
        effectiveMinutes: 13.64,
        probabilityUp: 0.6153846,
        modelAloneUp: 0.7021277,
      }

      test('keeps what produced each reading, internal: out of the public contest and its events', async (store) => {
        const contest = await openWith(store)
        const signal = makeSignal(contest, { minute: 1, inputs })
        const event = await store.addSignal(signal)
        assert.ok(event)
        assert.ok(!/probability|observed|alone/.test(event.data))
        const { inputs: _inputs, ...published } = signal
        assert.deepEqual((await store.getContest(contest.ticker))?.signals, [published])
        await store.expireContest(contest.ticker)
        await store.settleContest(contest.ticker, UP)
        const [reading, ...rest] = await store.listGradedReadings({ series: contest.series })
        assert.deepEqual(rest, [])
        assert.deepEqual(reading, {
          ...published,
          outcome: 'win',
          opensAt: contest.opensAt,
          expiresAt: contest.expiresAt,
          settledSide: 'up',
          inputs,
        })
      })

      test('lists graded readings of settled contests in the window, oldest first, voids left out', async (store) => {
        const series = newSeries()
        const a = makeSettledContest(expiringAt(BASE + 2 * CONTEST_MS, { series }))
        const b = makeSettledContest(expiringAt(BASE + CONTEST_MS, { series, signals: [] }), UP)
        const withInputs = makeContest(expiringAt(BASE + 3 * CONTEST_MS, { series }))
        const c = settleContest(
          {
            ...withInputs,
            signals: [
              makeSignal(withInputs, { minute: 5, inputs }),
              makeSignal(withInputs, { minute: 6, inputs: { ...inputs, modelAloneUp: null } }),
            ],
          },
          DOWN,
        )
        const voided = makeSettledContest(expiringAt(BASE + 4 * CONTEST_MS, { series }), {
          kind: 'void',
          priceDollars: null,
        })
        await store.importHistory([a, b, c, voided])
        const all = await store.listGradedReadings({ series })
        assert.deepEqual(
          all.map((r) => [r.ticker, r.minute, r.outcome, r.inputs === null]),
          [
            [a.ticker, 1, 'win', true],
            [a.ticker, 2, 'loss', true],
            [c.ticker, 5, 'loss', false],
            [c.ticker, 6, 'loss', false],
          ],
        )
        // the model alone survives the bulk import, and a reading stored without it reads back null
        assert.deepEqual(
          all.slice(2).map((r) => r.inputs?.modelAloneUp),
          [inputs.modelAloneUp, null],
        )
        const later = await store.listGradedReadings({ series, since: BASE + 3 * CONTEST_MS })
        assert.deepEqual(
          later.map((r) => r.ticker),
          [c.ticker, c.ticker],
        )
        const earlier = await store.listGradedReadings({ series, before: BASE + 2 * CONTEST_MS })
        assert.deepEqual(
          earlier.map((r) => r.ticker),
          [a.ticker, a.ticker],
        )
      })
    })

    describe('listUnsettled', () => {
      test('returns live and expired contests of every series, oldest first', async (store) => {
        const live = await openWith(store, { series: newSeries(), opensAt: BASE + 2 * CONTEST_MS })
        const expired = await openWith(store, { series: newSeries(), opensAt: BASE })
        const settled = await openWith(store, { series: live.series, opensAt: BASE + CONTEST_MS })
        const signal = makeSignal(live)
        await store.addSignal(signal)
        await store.expireContest(expired.ticker)
        await store.settleContest(settled.ticker, UP)
        assert.deepEqual(await store.listUnsettled(), [
          { ...expired, state: 'expired' },
          { ...live, signals: [signal] },
        ])
      })

      test('is empty when every contest is settled', async (store) => {
        const contest = await openWith(store)
        await store.settleContest(contest.ticker, UP)
        await store.importHistory([makeSettledContest()])
        assert.deepEqual(await store.listUnsettled(), [])
      })
    })

    describe('countContests', () => {
      test('counts every contest, or only those of one series matched exactly', async (store) => {
        assert.equal(await store.countContests(), 0)
        const a = newSeries()
        const b = newSeries()
        const first = await openWith(store, { series: a })
        await store.settleContest(first.ticker, UP)
        await openWith(store, { series: a, opensAt: BASE + CONTEST_MS })
        await openWith(store, { series: b })
        await store.importHistory([makeSettledContest({ series: a, opensAt: BASE - CONTEST_MS })])
        assert.equal(await store.countContests(), 4)
        assert.equal(await store.countContests(a), 3)
        assert.equal(await store.countContests(b), 1)
        assert.equal(await store.countContests(a.slice(0, -1)), 0)
      })
    })

    describe('importHistory', () => {
      test('inserts settled contests with their graded signals and returns how many', async (store) => {
        const contests = [
          makeSettledContest({}, UP),
          makeSettledContest({}, DOWN),
          makeSettledContest({}, { kind: 'void', priceDollars: null }),
        ]
        assert.equal(await store.importHistory(contests), 3)
        for (const c of contests) assert.deepEqual(await store.getContest(c.ticker), c)
      })

      test('skips tickers that already exist and leaves them unchanged', async (store) => {
        const live = await openWith(store)
        const fresh = makeSettledContest()
        const clash = makeSettledContest({ ticker: live.ticker })
        assert.equal(await store.importHistory([clash, fresh]), 1)
        assert.deepEqual(await store.getContest(live.ticker), live)
        assert.deepEqual(await store.getContest(fresh.ticker), fresh)
      })

      test('appends one history.imported event per series with contests inserted', async (store) => {
        const a = newSeries()
        const b = newSeries()
        const existing = await openWith(store, { series: newSeries() })
        const after = await store.latestSeq()
        const inserted = await store.importHistory([
          makeSettledContest({ series: a }),
          makeSettledContest({ series: b }),
          makeSettledContest({ series: a, opensAt: BASE + CONTEST_MS }),
          makeSettledContest({ series: existing.series, ticker: existing.ticker }),
        ])
        assert.equal(inserted, 3)
        const events = await store.eventsAfter(after, 100)
        assert.deepEqual(
          events.map((e) => ({ type: e.type, series: e.series, ticker: e.ticker, data: JSON.parse(e.data) })),
          [
            { type: 'history.imported', series: a, ticker: '', data: { series: a, contests: 2 } },
            { type: 'history.imported', series: b, ticker: '', data: { series: b, contests: 1 } },
          ],
        )
      })

      test('returns 0 and appends nothing for an empty or an already known import', async (store) => {
        const contests = [makeSettledContest(), makeSettledContest()]
        assert.equal(await store.importHistory(contests), 2)
        const seq = await store.latestSeq()
        assert.equal(await store.importHistory([]), 0)
        assert.equal(await store.importHistory(contests), 0)
        assert.equal(await store.latestSeq(), seq)
      })
    })

    describe('eventsAfter', () => {
      test('returns the events after a seq in seq order, at most limit', async (store) => {
        const appended: StoredEvent[] = []
        for (let i = 0; i < 5; i++) appended.push(await store.appendEvent(customEvent()))
        assert.deepEqual(await store.eventsAfter(0, 100), appended)
        assert.deepEqual(await store.eventsAfter(appended[0]!.seq, 2), appended.slice(1, 3))
        assert.deepEqual(await store.eventsAfter(appended[4]!.seq, 100), [])
      })

      test('restricts to one series, matched exactly, or to one ticker', async (store) => {
        const series = newSeries()
        const a = await openWith(store, { series })
        const b = await openWith(store, { series, opensAt: BASE + CONTEST_MS })
        const other = await openWith(store, { series: `${series}X` })
        await store.addSignal(makeSignal(a))
        await store.addSignal(makeSignal(other))
        await store.createKey(makeKey())
        await store.addSignal(makeSignal(b))
        await store.expireContest(a.ticker)
        const all = await allEvents(store)
        assert.deepEqual(
          await store.eventsAfter(0, 100, { series }),
          all.filter((e) => e.series === series),
        )
        assert.equal((await store.eventsAfter(0, 100, { series })).length, 5)
        assert.deepEqual(
          await store.eventsAfter(0, 100, { ticker: a.ticker }),
          all.filter((e) => e.ticker === a.ticker),
        )
        const byTicker = await store.eventsAfter(0, 100, { ticker: a.ticker })
        assert.deepEqual(
          byTicker.map((e) => e.type),
          ['contest.opened', 'signal.emitted', 'contest.expired'],
        )
        assert.deepEqual(await store.eventsAfter(byTicker[0]!.seq, 1, { ticker: a.ticker }), [byTicker[1]])
      })
    })

    describe('contestHistoryEvents', () => {
      test('returns the contest.opened and signal.emitted events of one contest up to a seq', async (store) => {
        const contest = makeContest()
        const opened = (await store.openContest(contest))!
        const first = (await store.addSignal(makeSignal(contest, { minute: 1 })))!
        const other = await openWith(store)
        await store.addSignal(makeSignal(other, { minute: 1 }))
        const second = (await store.addSignal(makeSignal(contest, { minute: 2 })))!
        await store.expireContest(contest.ticker)
        await store.settleContest(contest.ticker, UP)
        const latest = await store.latestSeq()
        assert.deepEqual(await store.contestHistoryEvents(contest.ticker, latest), [opened, first, second])
        assert.deepEqual(await store.contestHistoryEvents(contest.ticker, first.seq), [opened, first])
        assert.deepEqual(await store.contestHistoryEvents(contest.ticker, opened.seq - 1), [])
        assert.deepEqual(await store.contestHistoryEvents(`${SERIES}-${suffix()}`, latest), [])
      })
    })

    describe('event log', () => {
      test('latestSeq is 0 on a fresh store', async (store) => {
        assert.equal(await store.latestSeq(), 0)
      })

      test('appendEvent stores the event as given and returns it with its seq and appendedAt', async (store) => {
        const event = customEvent({
          type: 'history.imported',
          series: SERIES,
          ticker: 'T-1',
          data: '{"a":1}',
        })
        const stored = await store.appendEvent(event)
        assert.deepEqual(stored, { ...event, seq: stored.seq, appendedAt: stored.appendedAt })
        assert.ok(Number.isSafeInteger(stored.seq) && stored.seq > 0)
        assert.ok(Math.abs(stored.appendedAt - Date.now()) < 60_000, 'appendedAt is wall-clock ms')
        assert.deepEqual(await allEvents(store), [stored])
        assert.equal(await store.latestSeq(), stored.seq)
      })

      test('seq strictly increases across every kind of write', async (store) => {
        const contest = await openWith(store)
        await store.addSignal(makeSignal(contest))
        await store.appendEvent(customEvent())
        const key = makeKey()
        await store.createKey(key)
        await store.revokeKey(key.id, BASE)
        await store.expireContest(contest.ticker)
        await store.settleContest(contest.ticker, UP)
        await store.importHistory([makeSettledContest()])
        const seqs = (await allEvents(store)).map((e) => e.seq)
        assert.equal(seqs.length, 8)
        for (let i = 1; i < seqs.length; i++)
          assert.ok(seqs[i]! > seqs[i - 1]!, `seq ${seqs[i]} follows ${seqs[i - 1]}`)
        assert.equal(await store.latestSeq(), seqs.at(-1))
      })

      const pruneClock = createManualClock(1_000_000)
      test(
        'pruneEvents deletes only events appended before the given time and returns how many',
        async (store) => {
          const old = await store.appendEvent(customEvent())
          pruneClock.advance(5)
          const recent = await store.appendEvent(customEvent())
          assert.ok(old.appendedAt < recent.appendedAt)
          assert.equal(await store.pruneEvents(recent.appendedAt), 1)
          assert.deepEqual(await allEvents(store), [recent])
          assert.equal(await store.pruneEvents(recent.appendedAt), 0)
        },
        { wallClock: pruneClock },
      )

      test('never reuses a seq after pruning, even once the log is empty', async (store) => {
        await store.appendEvent(customEvent())
        const last = await store.appendEvent(customEvent())
        assert.equal(await store.pruneEvents(last.appendedAt + 1), 2)
        assert.deepEqual(await allEvents(store), [])
        assert.equal(await store.latestSeq(), last.seq, 'latestSeq still reports the highest seq appended')
        const next = await store.appendEvent(customEvent())
        assert.ok(next.seq > last.seq)
        assert.equal(await store.latestSeq(), next.seq)
      })

      const hasEventClock = createManualClock(1_000_000)
      test(
        'hasEvent is true for a retained event appended since the bound, false for a pruned, older or never appended one',
        async (store) => {
          const old = await store.appendEvent(customEvent())
          hasEventClock.advance(5)
          const kept = await store.appendEvent(customEvent())
          hasEventClock.advance(5)
          const newest = await store.appendEvent(customEvent())
          await store.pruneEvents(kept.appendedAt)
          assert.equal(await store.hasEvent(kept.seq, 0), true)
          assert.equal(await store.hasEvent(kept.seq, kept.appendedAt), true, 'the bound is inclusive')
          assert.equal(await store.hasEvent(kept.seq, kept.appendedAt + 1), false, 'older than the bound')
          assert.equal(await store.hasEvent(newest.seq, kept.appendedAt + 1), true)
          assert.equal(await store.hasEvent(old.seq, 0), false)
          assert.equal(await store.hasEvent(newest.seq + 1, 0), false)
          assert.equal(await store.hasEvent(0, 0), false)
        },
        { wallClock: hasEventClock },
      )
    })

    describe('engine heartbeat', () => {
      test('is null until recorded, then the latest recorded instant', async (store) => {
        assert.equal(await store.lastEngineHeartbeat(), null)
        await store.recordEngineHeartbeat(BASE)
        assert.equal(await store.lastEngineHeartbeat(), BASE)
        await store.recordEngineHeartbeat(BASE + 30_000)
        assert.equal(await store.lastEngineHeartbeat(), BASE + 30_000)
      })
    })

    describe('deployment settings', () => {
      test('getSetting is null for a key never stored', async (store) => {
        assert.equal(await store.getSetting('virtual-clock'), null)
      })

      test('initSetting stores the first value and keeps it against later ones', async (store) => {
        assert.equal(await store.initSetting('virtual-clock', 'first'), 'first')
        assert.equal(await store.initSetting('virtual-clock', 'second'), 'first')
        assert.equal(await store.getSetting('virtual-clock'), 'first')
      })

      test('putSetting overwrites, and settings never collide with the epoch or heartbeat', async (store) => {
        const epoch = await store.epoch()
        await store.putSetting('epoch', 'x')
        await store.putSetting('virtual-clock', 'v2')
        assert.equal(await store.getSetting('virtual-clock'), 'v2')
        assert.equal(await store.getSetting('epoch'), 'x')
        assert.equal(await store.epoch(), epoch)
      })
    })

    describe('engine lease', () => {
      test('acquireLease takes a free lease', async (store) => {
        assert.deepEqual(await store.acquireLease('a', BASE, 10_000), {
          holder: 'a',
          expiresAt: BASE + 10_000,
        })
      })

      test('acquireLease leaves an unexpired lease with its holder and names that holder', async (store) => {
        await store.acquireLease('a', BASE, 10_000)
        assert.deepEqual(await store.acquireLease('b', BASE + 9_999, 10_000), {
          holder: 'a',
          expiresAt: BASE + 10_000,
        })
      })

      test('acquireLease takes over an expired lease, the expiry instant included', async (store) => {
        await store.acquireLease('a', BASE, 10_000)
        assert.deepEqual(await store.acquireLease('b', BASE + 10_000, 10_000), {
          holder: 'b',
          expiresAt: BASE + 20_000,
        })
        assert.deepEqual(await store.acquireLease('a', BASE + 15_000, 10_000), {
          holder: 'b',
          expiresAt: BASE + 20_000,
        })
      })

      test('acquireLease renews the lease for its holder, extending the expiry', async (store) => {
        await store.acquireLease('a', BASE, 10_000)
        assert.deepEqual(await store.acquireLease('a', BASE + 5_000, 10_000), {
          holder: 'a',
          expiresAt: BASE + 15_000,
        })
      })

      test('releaseLease frees the lease for another holder at once', async (store) => {
        await store.acquireLease('a', BASE, 10_000)
        await store.releaseLease('a')
        assert.deepEqual(await store.acquireLease('b', BASE + 1, 10_000), {
          holder: 'b',
          expiresAt: BASE + 10_001,
        })
      })

      test('releaseLease by someone other than the holder changes nothing', async (store) => {
        await store.acquireLease('a', BASE, 10_000)
        await store.releaseLease('b')
        assert.deepEqual(await store.acquireLease('b', BASE + 1, 10_000), {
          holder: 'a',
          expiresAt: BASE + 10_000,
        })
      })
    })

    describe('API keys', () => {
      test('createKey stores the key for listKeys and findKeyByDigest', async (store) => {
        const first = makeKey({ label: 'bootstrap', createdAt: BASE })
        const second = makeKey({ label: 'ci', createdAt: BASE + 1_000, lastUsedAt: BASE + 2_000 })
        await store.createKey(second)
        await store.createKey(first)
        assert.deepEqual(await store.listKeys(), [first, second])
        assert.deepEqual(await store.findKeyByDigest(second.digest), second)
        assert.equal(await store.findKeyByDigest(randomBytes(32).toString('hex')), null)
      })

      test('listKeys is empty on a fresh store', async (store) => {
        assert.deepEqual(await store.listKeys(), [])
      })

      test('createKey appends a key.changed event naming the key', async (store) => {
        const key = makeKey()
        await store.createKey(key)
        const [event] = await allEvents(store)
        assert.equal(event?.type, 'key.changed')
        assert.equal(event?.series, '')
        assert.equal(event?.ticker, '')
        assert.deepEqual(JSON.parse(event!.data), { id: key.id })
      })

      test('createKey rejects a second key with the same digest', async (store) => {
        const key = makeKey()
        await store.createKey(key)
        await assert.rejects(store.createKey(makeKey({ digest: key.digest })))
        assert.deepEqual(await store.listKeys(), [key])
      })

      test('revokeKey sets revokedAt and appends key.changed', async (store) => {
        const key = makeKey()
        await store.createKey(key)
        const seq = await store.latestSeq()
        assert.equal(await store.revokeKey(key.id, BASE + 5_000), true)
        assert.deepEqual(await store.findKeyByDigest(key.digest), { ...key, revokedAt: BASE + 5_000 })
        const events = await store.eventsAfter(seq, 10)
        assert.deepEqual(
          events.map((e) => [e.type, JSON.parse(e.data)]),
          [['key.changed', { id: key.id }]],
        )
      })

      test('revokeKey returns false, without an event, for a revoked or unknown key', async (store) => {
        const key = makeKey()
        await store.createKey(key)
        await store.revokeKey(key.id, BASE + 5_000)
        const seq = await store.latestSeq()
        assert.equal(await store.revokeKey(key.id, BASE + 9_000), false)
        assert.equal(await store.revokeKey(randomUUID(), BASE + 9_000), false)
        assert.equal(await store.latestSeq(), seq)
        assert.equal((await store.findKeyByDigest(key.digest))?.revokedAt, BASE + 5_000)
      })

      test('touchKeys records last use of several keys at once and ignores unknown ids', async (store) => {
        const [a, b, c] = [makeKey(), makeKey(), makeKey()]
        for (const k of [a, b, c]) await store.createKey(k)
        await store.touchKeys(new Map([]))
        await store.touchKeys(
          new Map([
            [a.id, BASE + 1_000],
            [b.id, BASE + 2_000],
            [randomUUID(), BASE + 3_000],
          ]),
        )
        assert.equal((await store.findKeyByDigest(a.digest))?.lastUsedAt, BASE + 1_000)
        assert.equal((await store.findKeyByDigest(b.digest))?.lastUsedAt, BASE + 2_000)
        assert.equal((await store.findKeyByDigest(c.digest))?.lastUsedAt, null)
      })
    })

    describe('durability', () => {
      test('keeps its data, epoch and event seq across close and reopen', async (first) => {
        const contest = makeContest()
        await first.openContest(contest)
        const signal = makeSignal(contest)
        await first.addSignal(signal)
        const epoch = await first.epoch()
        const seq = await first.latestSeq()
        await first.close()

        const second = await factory.reopen(first)
        try {
          await second.migrate()
          assert.deepEqual(await second.getContest(contest.ticker), { ...contest, signals: [signal] })
          assert.equal(await second.epoch(), epoch)
          assert.equal(await second.latestSeq(), seq)
        } finally {
          await second.close()
        }
      })

      test('rolls back the whole write, event included, when any part of it fails', async (store) => {
        const contest = makeContest()
        // a signal pointing at another, unknown contest breaks the foreign key after the contest row went in
        const stray = makeSignal(makeContest())
        await assert.rejects(store.openContest({ ...contest, signals: [stray] }))
        assert.equal(await store.getContest(contest.ticker), null)
        assert.equal(await store.latestSeq(), 0)
        assert.ok(await store.openContest(contest), 'the store is usable after the rollback')
      })

      const wall = createManualClock(1_000_000)
      test(
        'stamps appendedAt from the injected wall clock',
        async (store) => {
          wall.set(1_000_000)
          const first = await store.appendEvent(customEvent())
          wall.advance(5)
          const second = await store.appendEvent(customEvent())
          assert.deepEqual([first.appendedAt, second.appendedAt], [1_000_000, 1_000_005])
          assert.equal(await store.pruneEvents(1_000_005), 1)
        },
        { wallClock: wall },
      )
    })
  })
}
