// One-minute closes from the live spot feed: the candle warm-up of each exchange's format, the median
// across exchanges, and live minutes extending the history. The wall clock is injected so whole
// minutes can pass in milliseconds.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SpotExchange } from '../src/feeds/spot/spot-exchange.ts'
import type { FixtureCandle } from './fixtures/exchange-fixtures.ts'
import { startSpotWorld } from './support/spot-world.ts'
import { eventually } from './support/wait.ts'

const T0 = Date.UTC(2026, 2, 2, 12) // a minute boundary
const MIN = 60_000
const OFFSET: Record<SpotExchange, number> = { coinbase: 0, kraken: 10, bitstamp: 20 }

/** The hour of candles before T0, distinct per exchange and never monotonic, so order mistakes show. */
const hourBefore = (kind: SpotExchange): FixtureCandle[] =>
  Array.from({ length: 60 }, (_, i) => ({
    time: (T0 - (60 - i) * MIN) / 1000,
    close: 68000 + i * 2 + OFFSET[kind] + (i % 3) * 0.25,
  }))

const manualClock = (start: number) => {
  let now = start
  return { now: () => now, set: (t: number) => (now = t) }
}

describe('createSpotFeed › minuteClosesBefore', () => {
  for (const kind of ['coinbase', 'kraken', 'bitstamp'] as const) {
    it(`warms up the previous hour from ${kind} candles, oldest first`, async () => {
      const clock = manualClock(T0 + 30_000)
      const w = await startSpotWorld({
        sources: [kind],
        wallClock: clock,
        prepare: (ex) => ex[kind].setCandles(hourBefore(kind)),
      })
      try {
        // a warm-up request slower than the world's 500 ms timeout (a loaded machine) is tried again
        // 300 ms later: the hour is there once a request has answered
        const closes = await eventually(
          () => w.feed.minuteClosesBefore(T0, 61),
          (c) => c.length === 60,
          10_000,
        )
        assert.deepEqual(
          closes,
          hourBefore(kind).map((c) => c.close),
        )
        assert.deepEqual(await w.feed.minuteClosesBefore(T0 - 10 * MIN, 3), closes.slice(47, 50))
      } finally {
        await w.close()
      }
    })
  }

  for (const kind of ['coinbase', 'kraken', 'bitstamp'] as const) {
    it(`drops ${kind}'s newest candle while its minute is unfinished: no partial close stored`, async () => {
      const clock = manualClock(T0 + 30_000)
      // the exchange's current-minute candle, its "close" only the latest trade so far
      const unfinished = { time: T0 / 1000, close: 12_345 }
      const loaded: number[] = []
      const w = await startSpotWorld({
        sources: [kind],
        wallClock: clock,
        prepare: (ex) => ex[kind].setCandles([...hourBefore(kind), unfinished]),
        onCloses: (_source, closes) => loaded.push(...closes.map((c) => c.minuteStart)),
      })
      try {
        await eventually(
          () => w.feed.minuteClosesBefore(T0, 61),
          (c) => c.length === 60,
          10_000,
        )
        // (a live price of minute T0 would hide a stored candle from closeOf: the load itself is checked)
        assert.equal(loaded.length, 60)
        assert.equal(Math.max(...loaded), T0 - MIN, 'the last finished minute is the newest loaded')
        if (kind === 'bitstamp')
          assert.ok(w.ex.bitstamp.requests.some((r) => r.query.exclude_current_candle === 'true'))
      } finally {
        await w.close()
      }
    })
  }

  it('stamps each close with its minute and leaves a missing minute out', async () => {
    const clock = manualClock(T0 + 30_000)
    // minute T0 − 30 min has no candle: a gap, not a shorter return
    const gappy = hourBefore('coinbase').filter((c) => c.time !== (T0 - 30 * MIN) / 1000)
    const w = await startSpotWorld({
      sources: ['coinbase'],
      wallClock: clock,
      prepare: (ex) => ex.coinbase.setCandles(gappy),
    })
    try {
      const stamped = await eventually(
        async () => (await w.feed.stampedClosesBefore?.(T0, 61)) ?? [],
        (c) => c.length === 59,
      )
      assert.deepEqual(
        stamped.map((c) => [c.at, c.priceDollars]),
        gappy.map((c) => [c.time * 1000 + MIN, c.close]),
      )
      assert.ok(!stamped.some((c) => c.at === T0 - 29 * MIN))
    } finally {
      await w.close()
    }
  })

  it('retries a failed warm-up until the candles arrive', async () => {
    const clock = manualClock(T0 + 30_000)
    const w = await startSpotWorld({
      sources: ['kraken'],
      wallClock: clock,
      prepare: (ex) => {
        ex.kraken.setCandles(hourBefore('kraken'))
        ex.kraken.failRest(true)
      },
    })
    try {
      assert.deepEqual(await w.feed.minuteClosesBefore(T0, 61), [])
      w.ex.kraken.failRest(false)
      const closes = await eventually(
        () => w.feed.minuteClosesBefore(T0, 61),
        (c) => c.length === 60,
      )
      assert.equal(closes[0], 68010)
      assert.ok(w.logs.some((l) => l.msg === 'spot candle warm-up failed'))
    } finally {
      await w.close()
    }
  })

  it('takes the median across exchanges and extends the warm-up with live minutes', async () => {
    const clock = manualClock(T0 + 30_000)
    const w = await startSpotWorld({
      wallClock: clock,
      prepare: (ex) => {
        for (const kind of ['coinbase', 'kraken', 'bitstamp'] as const) ex[kind].setCandles(hourBefore(kind))
      },
    })
    try {
      for (const kind of ['coinbase', 'kraken', 'bitstamp'] as const) {
        await eventually(
          () => w.ex[kind].subscriptions.length,
          (n) => n === 1,
        )
        w.ex[kind].failRest(true) // from here on only socket pushes move the prices
      }
      // minute 12:00
      w.ex.coinbase.setPrice(68100, 68101)
      w.ex.kraken.setPrice(68110, 68111)
      w.ex.bitstamp.setPrice(68130, 68131)
      await eventually(
        () => w.feed.spotAt(clock.now()),
        (s) => s === 68110.5,
      )
      // minute 12:01
      clock.set(T0 + MIN + 10_000)
      w.ex.coinbase.setPrice(68200, 68201)
      w.ex.kraken.setPrice(68190, 68191)
      w.ex.bitstamp.setPrice(68220, 68221)
      await eventually(
        () => w.feed.spotAt(clock.now()),
        (s) => s === 68200.5,
      )
      clock.set(T0 + 2 * MIN)

      const closes = await w.feed.minuteClosesBefore(T0 + 2 * MIN, 61)
      const kraken = hourBefore('kraken').map((c) => c.close)
      assert.deepEqual(closes, [...kraken.slice(1), 68110.5, 68200.5])
      // the minute still running at `at` is not a whole minute yet
      assert.deepEqual(await w.feed.minuteClosesBefore(T0 + 2 * MIN - 1, 61), [...kraken, 68110.5])
    } finally {
      await w.close()
    }
  })

  /** The seconds' sums of a source whose mids were `mid + 0.5 + move` in turn, each held a while. */
  const secondsOf = (mid: number, moves: number[]) => {
    const mids = moves.map((m) => mid + 0.5 + m)
    const steps = mids.slice(1).map((x, i) => Math.log(x / (mids[i] as number)))
    const largest = steps.reduce((a, x) => (Math.abs(x) > Math.abs(a) ? x : a), 0)
    return { squares: steps.reduce((a, x) => a + x * x, 0), crosses: 0, largest }
  }

  it('gives a minute the live prices saw whole its range, mean and seconds: the medians of the sources’', async () => {
    const clock = manualClock(T0 - 5_000)
    const w = await startSpotWorld({ wallClock: clock })
    const base: Record<SpotExchange, number> = { coinbase: 68100, kraken: 68110, bitstamp: 68130 }
    const push = async (at: number, move: number) => {
      clock.set(at)
      for (const kind of ['coinbase', 'kraken', 'bitstamp'] as const)
        w.ex[kind].setPrice(base[kind] + move, base[kind] + move + 1)
      // every source's new price in before the clock moves on: kraken's alone already makes the
      // median, and a price that came in after the next step would be stamped with its second
      await eventually(
        () => w.feed.sources(),
        (sources) =>
          sources.length === 3 &&
          sources.every((s) => s.midDollars === base[s.name as SpotExchange] + move + 0.5),
        // three sockets' frames: a loaded CI run took over the 3 s default to deliver them
        15_000,
      )
      assert.equal(await w.feed.spotAt(clock.now()), base.kraken + move + 0.5)
    }
    try {
      for (const kind of ['coinbase', 'kraken', 'bitstamp'] as const)
        await eventually(
          () => w.ex[kind].subscriptions.length,
          (n) => n === 1,
        )
      // the price minute 12:00 opens at, then twelve prices inside it, five seconds apart
      await push(T0 - 2_000, -1)
      const moves = [0, 5, -3, 8, 2, -6, 1, 4, -2, 3, 0, 1]
      for (const [i, move] of moves.entries()) await push(T0 + 1_000 + i * 5_000, move)
      const [minute] = await w.feed.stampedClosesBefore(T0 + MIN, 1)
      assert.deepEqual(minute, {
        at: T0 + MIN,
        priceDollars: base.kraken + 1.5,
        highDollars: base.kraken + 8.5,
        lowDollars: base.kraken - 5.5,
        // the mean of the prices in force at its 60 whole seconds: the open's at second 1, each
        // price's for the 5 seconds after it (the last one's 4), (−1 + 5·12 + 4·1) / 60 above the mid
        meanDollars: base.kraken + 0.5 + 63 / 60,
        // its seconds: a move at each new price (never two in neighbouring seconds, so no cross
        // products), the largest from −3 to 8; each sum the median source's, kraken's
        seconds: secondsOf(base.kraken, [-1, ...moves]),
      })
      // the minute before saw one price only: a close, no range
      const [before] = await w.feed.stampedClosesBefore(T0, 1)
      assert.deepEqual(before, { at: T0, priceDollars: base.kraken - 0.5 })
    } finally {
      await w.close()
    }
  })
})
