// Recording on Polymarket (decisions §12, RECORD_DIR with VENUE=polymarket): the real adapter against
// the loopback fixture, its tap feeding the day-file recorder. The tape holds every Gamma event body
// exactly as the venue returned it and every token's /book body exactly as served (worst-first levels
// kept), each book naming its market's slug and its token; the recording replays.

import assert from 'node:assert/strict'
import path from 'node:path'
import { describe, it } from 'node:test'
import { loadConfig } from '../src/config/config.ts'
import { slugForStart, windowStartS } from '../src/feeds/polymarket/window-slug.ts'
import { runReplay } from '../src/main/replay.ts'
import { NO_ANSWER } from '../src/ports/venue.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import type { BookRecord, TapeRecord } from '../src/tape/tape-format.ts'
import { openTape } from '../src/tape/tape-reader.ts'
import { createTapeRecorder, dayFileName } from '../src/tape/tape-recorder.ts'
import {
  DOWN_TOKEN,
  EXAMPLE_UP_BOOK_LEVELS,
  makeGammaEvent,
  resolvedGammaEvent,
  UP_TOKEN,
} from './fixtures/polymarket-bodies.ts'
import { createRecordingLogger } from './support/engine-world.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'
import { replayOptions } from './support/replay-options.ts'
import { tempDir } from './support/service-process.ts'
import { waitFor } from './support/wait.ts'

const MINUTE = 60_000
const S = windowStartS(Date.now())
const SHIFT = S * 1000 + 7 * MINUTE - Date.now()
const CURRENT = slugForStart(S)
const META = { priceToBeat: 83_962.48113709, finalPrice: 83_988.90427316 }
// the Down book served best-first, as the venue's OpenAPI text describes it
const DOWN_BIDS = [
  { price: '0.45', size: '64.1' },
  { price: '0.01', size: '9000' },
]
const DOWN_ASKS = [
  { price: '0.455', size: '96.4' },
  { price: '0.99', size: '18000' },
]

describe('recording on Polymarket', () => {
  it('accepts RECORD_DIR with VENUE=polymarket', () => {
    const c = loadConfig({ VENUE: 'polymarket', SERIES: 'btc-updown-15m', RECORD_DIR: '/var/lib/cs/tapes' })
    assert.equal(c.recordDir, '/var/lib/cs/tapes')
  })

  it('records the Gamma event bodies and each token’s book exactly as received', async () => {
    const tmp = tempDir('cs-pm-record-')
    const clock = { now: () => Date.now() + SHIFT }
    const recorder = createTapeRecorder({
      dir: tmp.dir,
      keepDays: 30,
      venue: 'polymarket',
      series: ['btc-updown-15m'],
      sources: ['coinbase'],
      clock,
      logger: createRecordingLogger(),
      origin: 'test',
    })
    await recorder.start()
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        pm.putEvent(resolvedGammaEvent(S - 900, 'up', META))
        pm.putEvent(makeGammaEvent({ startS: S }))
        pm.putEvent(makeGammaEvent({ startS: S + 900 }))
        pm.setBook(UP_TOKEN, EXAMPLE_UP_BOOK_LEVELS.bids, EXAMPLE_UP_BOOK_LEVELS.asks)
        pm.setBook(DOWN_TOKEN, DOWN_BIDS, DOWN_ASKS)
      },
      venue: {
        tap: {
          event: recorder.market,
          book: (ticker, token, body, at) => recorder.book(ticker, body, token, at),
          noBook: recorder.noBook,
        },
      },
    })
    const served: Record<string, unknown> = {}
    let quotedAt: number | undefined
    try {
      await waitFor('the current window listed', async () =>
        (await w.venue.marketAt('btc-updown-15m', w.now())) ? true : undefined,
      )
      const quote = await w.venue.quote(CURRENT, w.now())
      assert.ok(quote !== NO_ANSWER)
      assert.deepEqual([quote?.upAskCents, quote?.downAskCents], [55, 45.5])
      quotedAt = quote?.observedAt
      for (const slug of [slugForStart(S - 900), CURRENT, slugForStart(S + 900)])
        served[slug] = w.pm.event(slug)
    } finally {
      await w.close()
      await recorder.close()
    }

    const tape = await openTape(path.join(tmp.dir, dayFileName(clock.now())))
    const records: TapeRecord[] = []
    for await (const r of tape.records()) records.push(r)
    // the recording replays: the live window opens from its recorded body; its own strike is not yet
    // published, so the previous window's final price stands in, as live
    const store = createSqliteStore(path.join(tmp.dir, 'replayed.db'))
    await store.migrate()
    try {
      const summary = await runReplay(replayOptions(tmp.dir, store))
      assert.equal(summary.stopped, null)
      assert.equal(summary.opened, 1)
      const replayed = await store.getContest(CURRENT)
      assert.equal(replayed?.opensAt, S * 1000)
      assert.equal(replayed?.strikePriceDollars, Math.round(META.finalPrice * 100) / 100)
    } finally {
      await store.close()
      tmp.remove()
    }
    assert.equal(tape.header.venue, 'polymarket')
    assert.deepEqual(tape.header.series, ['btc-updown-15m'])
    for (const [slug, body] of Object.entries(served)) {
      const recorded = records.filter((r) => r.k === 'market' && (r.m as { slug: string }).slug === slug)
      assert.ok(recorded.length >= 1, `${slug} recorded`)
      // the same body polled again is written once
      assert.equal(recorded.length, 1, `${slug} recorded once`)
      assert.deepEqual((recorded[0] as { m: unknown }).m, body)
    }
    const books = records.filter((r): r is BookRecord => r.k === 'book')
    const up = books.find((b) => b.token === UP_TOKEN)
    const down = books.find((b) => b.token === DOWN_TOKEN)
    assert.ok(up && down, 'a book of each token')
    assert.equal(up.ticker, CURRENT)
    assert.equal(down.ticker, CURRENT)
    assert.deepEqual((up.ob as { asks: unknown }).asks, EXAMPLE_UP_BOOK_LEVELS.asks)
    assert.deepEqual((down.ob as { asks: unknown }).asks, DOWN_ASKS)
    // the quote is seen when its last book came: the instant a replay's book request is at
    assert.equal(quotedAt, Math.max(up.t, down.t))
    assert.deepEqual((down.ob as { bids: unknown }).bids, DOWN_BIDS)
  })
})
