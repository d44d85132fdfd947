// Replay of Polymarket tapes (decisions §12, §14) on hand-built tapes: the Gamma event bodies and the
// per-token CLOB books go through the live adapter's pure mappings. The strike stays null until the
// venue publishes its price to beat (minutes after the end), a result published after the close
// settles and grades the contest, a book served worst-first gives its lowest ask, a sub-cent tick is
// kept, a malformed event body is skipped naming its field without touching the contest, and a
// side's book missing within 5 s of a minute's request leaves that minute without a reading.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import type { Contest } from '../src/domain/contest.ts'
import { MODEL_VERSION as V1_MODEL } from '../src/domain/model.ts'
import { runReplay } from '../src/main/replay.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import type { TapeHeader, TapeRecord } from '../src/tape/tape-format.ts'
import {
  DOWN_TOKEN,
  makeBook,
  makeGammaEvent,
  resolvedGammaEvent,
  UP_TOKEN,
} from './fixtures/polymarket-bodies.ts'
import { createRecordingLogger, type RecordingLogger } from './support/engine-world.ts'
import { replayOptions } from './support/replay-options.ts'
import { tempDir } from './support/service-process.ts'

const MINUTE = 60_000
const SERIES = 'btc-updown-15m'
const OPENS = Date.UTC(2026, 10, 20, 17, 0)
const CLOSES = OPENS + 15 * MINUTE
const START_S = OPENS / 1000
const SLUG = `btc-updown-15m-${START_S}`
const PRICE_TO_BEAT = 100_000.123456789
const FINAL_PRICE = 98_990.987654321
const SOURCES = ['coinbase', 'kraken', 'bitstamp']
const at = (minute: number, ms = 0): number => OPENS + minute * MINUTE + ms

const header: TapeHeader = {
  tape: 1,
  venue: 'polymarket',
  series: [SERIES],
  sources: SOURCES,
  from: new Date(OPENS).toISOString(),
  to: new Date(CLOSES + 10 * MINUTE).toISOString(),
  origin: 'hand-built test tape',
}

const level = (price: string, size = '100') => ({ price, size })
// worst first, best last, as the venue serves them: up's lowest ask 40 ¢, down's 60.5 ¢ (a 0.001 tick)
const UP_BOOK = makeBook(
  UP_TOKEN,
  [level('0.01', '20000'), level('0.38')],
  [level('0.99', '18000'), level('0.41'), level('0.40')],
)
const DOWN_BOOK = makeBook(
  DOWN_TOKEN,
  [level('0.01', '20000'), level('0.59')],
  [level('0.99', '18000'), level('0.62'), level('0.605')],
)

/**
 * One window: spot 1 % under the price to beat (a clear `down`) from 70 minutes before the open; the
 * event listed, then resolved Down 90 s after the end, then its metadata published 3 minutes after
 * the end (or `strikeAt`); per-token books at the minutes `books` says (`up-only` leaves out down's;
 * `up-no-book` records up's as the CLOB's 404).
 */
function windowTape(opts: {
  books: { t: number; sides?: 'both' | 'up-only' | 'up-no-book' }[]
  strikeAt?: number
  extra?: TapeRecord[]
  /** false: book records carry only `ticker` and `ob`, as decisions §12 lists them */
  tokenField?: boolean
}): TapeRecord[] {
  const records: TapeRecord[] = []
  for (let t = OPENS - 70 * MINUTE; t <= CLOSES + 8 * MINUTE; t += 1000) {
    const px = 99_000 + ((t / 1000) % 2 === 0 ? 3 : -3)
    for (const src of SOURCES) records.push({ t, k: 'spot', src, px })
  }
  const metadata = { priceToBeat: PRICE_TO_BEAT }
  records.push({ t: OPENS - 15 * MINUTE, k: 'market', m: makeGammaEvent({ startS: START_S }) })
  if (opts.strikeAt !== undefined && opts.strikeAt < CLOSES)
    records.push({
      t: opts.strikeAt,
      k: 'market',
      m: makeGammaEvent({ startS: START_S, eventMetadata: metadata }),
    })
  // Gamma keeps showing the market open for a while after the end (it caches)
  records.push({
    t: CLOSES + 20_000,
    k: 'market',
    m: makeGammaEvent({ startS: START_S, acceptingOrders: false }),
  })
  records.push({ t: CLOSES + 90_000, k: 'market', m: resolvedGammaEvent(START_S, 'down', null) })
  records.push({
    t: opts.strikeAt !== undefined && opts.strikeAt >= CLOSES ? opts.strikeAt : CLOSES + 3 * MINUTE,
    k: 'market',
    m: resolvedGammaEvent(START_S, 'down', { priceToBeat: PRICE_TO_BEAT, finalPrice: FINAL_PRICE }),
  })
  const token = (id: string) => (opts.tokenField === false ? {} : { token: id })
  for (const { t, sides } of opts.books) {
    records.push(
      sides === 'up-no-book'
        ? { t, k: 'book', ticker: SLUG, token: UP_TOKEN, ob: null, st: 404 }
        : { t, k: 'book', ticker: SLUG, ...token(UP_TOKEN), ob: UP_BOOK },
    )
    if (sides !== 'up-only')
      records.push({ t: t + 300, k: 'book', ticker: SLUG, ...token(DOWN_TOKEN), ob: DOWN_BOOK })
  }
  records.push(...(opts.extra ?? []))
  return records.sort((a, b) => a.t - b.t)
}

const tmp = tempDir('cs-tape-polymarket-')
after(() => tmp.remove())
let files = 0
function writeTape(records: TapeRecord[]): string {
  const file = path.join(tmp.dir, `tape-${++files}.ndjson`)
  writeFileSync(file, [header, ...records].map((r) => `${JSON.stringify(r)}\n`).join(''))
  return file
}

/** Replays a tape; `strikeSeen` is the stored strike at each instant the test asks about. */
async function replay(
  file: string,
  opts: { probeAt?: number[]; model?: string } = {},
): Promise<{
  contest: Contest | null
  skipped: Record<string, number>
  logger: RecordingLogger
  probes: (number | null)[]
}> {
  const store = createSqliteStore(path.join(tmp.dir, `store-${++files}.db`))
  await store.migrate()
  const logger = createRecordingLogger()
  const probes: (number | null)[] = []
  try {
    for (const to of opts.probeAt ?? []) {
      // a replay stopped at `to` shows what a client would have seen then
      const partial = createSqliteStore(path.join(tmp.dir, `probe-${++files}.db`))
      await partial.migrate()
      await runReplay(replayOptions(file, partial, { to }))
      probes.push((await partial.getContest(SLUG))?.strikePriceDollars ?? null)
      await partial.close()
    }
    const summary = await runReplay(
      replayOptions(file, store, { logger, model: createReadingModel(opts.model ?? DEFAULT_MODEL) }),
    )
    assert.equal(summary.stopped, null)
    return { contest: await store.getContest(SLUG), skipped: summary.skipped, logger, probes }
  } finally {
    await store.close()
  }
}

describe('replay of a Polymarket tape', () => {
  it('keeps the strike null while the venue has not published it, then sets it; a result minutes after the close settles and grades', async () => {
    const books = Array.from({ length: 14 }, (_, i) => ({ t: at(i + 1, 1_000) }))
    const { contest, probes } = await replay(writeTape(windowTape({ books })), {
      probeAt: [at(7), CLOSES + 2 * MINUTE, CLOSES + 5 * MINUTE],
    })
    assert.ok(contest)
    assert.deepEqual(probes, [null, null, 100_000.12])
    assert.equal(contest.strikePriceDollars, 100_000.12)
    assert.equal(contest.state, 'settled')
    assert.equal(contest.settledSide, 'down')
    assert.equal(contest.settledPriceDollars, 98_990.99)
    // readings while the strike is unpublished come from the model's own estimate of it
    assert.ok(contest.signals.length > 0, 'readings while the price to beat is unpublished')
    for (const s of contest.signals) assert.equal(s.outcome, s.side === 'down' ? 'win' : 'loss')
    // the tape's Gamma body names the references, and the replay stores them (decisions §16)
    assert.deepEqual(contest.venue, {
      name: 'polymarket',
      refs: {
        slug: SLUG,
        conditionId: '0x3b30b1ce5d5c8b574f8a1c7fecae6a0ae0348f92c1409fba12ba68f46d2c43ff',
        upTokenId: UP_TOKEN,
        downTokenId: DOWN_TOKEN,
      },
    })
  })

  it('answers a quote from each side’s own token book: the lowest ask of a worst-first book, a 0.1 ¢ tick kept; a side’s book never had is no one-sided book but a late minute', async () => {
    // a market of the older kind, whose price to beat is published 10 s into the window
    const books = [
      { t: at(1, 2_000) },
      { t: at(2, 1_000), sides: 'up-only' as const },
      { t: at(3, 4_000) },
      { t: at(4, 6_000) },
    ]
    // the quote's mechanics, not the pool: the book (40 ¢ up) contradicts a spot 1 % under the strike,
    // and v2's Polymarket pool, fitted on a crowd that knows the index, would side with the book; v1
    // reads the spot alone, so the side stays the spot's and the entry shows which ask was read
    const { contest, skipped } = await replay(writeTape(windowTape({ books, strikeAt: at(0, 10_000) })), {
      model: V1_MODEL,
    })
    assert.ok(contest)
    // minute 2's down book never comes: its up book alone is not read as a one-sided book; minute
    // 4's books come 6 s after the boundary, past the first request's 5 s, and a retry has them
    assert.deepEqual(
      contest.signals.map((s) => s.minute),
      [1, 3, 4],
    )
    for (const s of contest.signals) {
      assert.equal(s.side, 'down')
      assert.equal(s.entryPriceCents, 60.5)
    }
    assert.equal(contest.signals[2]?.raisedAt, at(4, 6_300), 'raised when its second book came')
    assert.deepEqual(skipped, { late: 11 })
    assert.equal(contest.settledSide, 'down')
  })

  it('reads a recorded 404 (`st: 404`) as that side having no book: the other side’s ask is a one-sided quote, as live read it', async () => {
    const books = [{ t: at(1, 2_000) }, { t: at(2, 1_000), sides: 'up-no-book' as const }]
    const { contest } = await replay(writeTape(windowTape({ books, strikeAt: at(0, 10_000) })), {
      model: V1_MODEL,
    })
    assert.ok(contest)
    assert.deepEqual(
      contest.signals.map((s) => [s.minute, s.side, s.entryPriceCents]),
      [
        [1, 'down', 60.5],
        [2, 'down', 60.5],
      ],
    )
    // seen when the later of the two answers came: the down book, 300 ms after the up side's 404
    assert.equal(contest.signals[1]?.raisedAt, at(2, 1_300))
  })

  it('skips a quote whose recorded book is malformed, its warning naming the tape and the lines of the books asked', async () => {
    const up: TapeRecord = { t: at(2, 1_000), k: 'book', ticker: SLUG, token: UP_TOKEN, ob: UP_BOOK }
    const down: TapeRecord = { t: at(2, 1_300), k: 'book', ticker: SLUG, token: DOWN_TOKEN, ob: 'not a book' }
    const records = windowTape({ books: [{ t: at(1, 2_000) }], strikeAt: at(0, 10_000), extra: [up, down] })
    const file = writeTape(records)
    const { contest, logger } = await replay(file, { model: V1_MODEL })
    assert.ok(contest)
    // minute 2's down book is not read: no reading from its up side alone
    assert.deepEqual(
      contest.signals.map((s) => s.minute),
      [1],
    )
    const warned = (
      logger.warnings as { obj: { side?: string; tape?: string; lines?: number[] }; msg: string }[]
    ).filter((w) => /order book malformed/.test(w.msg))
    assert.deepEqual(
      warned.map((w) => [w.obj.side, w.obj.tape, w.obj.lines]),
      [['down', file, [records.indexOf(up) + 2, records.indexOf(down) + 2]]],
    )
  })

  it('reads a book record without `token` (decisions §12 lists `ticker` and `ob`) as the book of the token its body echoes in `asset_id`', async () => {
    // another writer's tape: each /book body exactly as served names its token, the record does not
    const books = [{ t: at(1, 2_000) }, { t: at(2, 1_000), sides: 'up-only' as const }, { t: at(3, 4_000) }]
    const { contest, skipped } = await replay(
      writeTape(windowTape({ books, strikeAt: at(0, 10_000), tokenField: false })),
      { model: V1_MODEL },
    )
    assert.ok(contest)
    // the up book is never taken for the down side's: minute 2 (up only) stays without a reading
    assert.deepEqual(
      contest.signals.map((s) => [s.minute, s.side, s.entryPriceCents]),
      [
        [1, 'down', 60.5],
        [3, 'down', 60.5],
      ],
    )
    assert.deepEqual(skipped, { late: 12 })
  })

  it('skips a malformed event body naming its field, and the contest it names is not corrupted', async () => {
    const broken = makeGammaEvent({
      startS: START_S,
      eventMetadata: { priceToBeat: PRICE_TO_BEAT },
    }) as unknown as {
      markets: Record<string, unknown>[]
    }
    ;(broken.markets[0] as Record<string, unknown>).clobTokenIds = '["not-a-token"]'
    const books = [{ t: at(1, 1_000) }, { t: at(6, 1_000) }]
    const brokenRecord: TapeRecord = { t: at(5, 30_000), k: 'market', m: broken }
    const records = windowTape({ books, strikeAt: at(0, 10_000), extra: [brokenRecord] })
    const file = writeTape(records)
    const { contest, logger } = await replay(file, { model: V1_MODEL })
    assert.ok(contest)
    const warned = logger.warnings as {
      obj: { field?: string; slug?: string; tape?: string; line?: number }
      msg: string
    }[]
    const malformed = warned.filter((w) => /malformed/.test(w.msg))
    // the header is line 1: the operator is sent to the very line to mend
    assert.deepEqual(
      malformed.map((w) => [w.obj.slug, w.obj.field, w.obj.tape, w.obj.line]),
      [[SLUG, 'clobTokenIds', file, records.indexOf(brokenRecord) + 2]],
      JSON.stringify(warned),
    )
    // the last good body stands: the strike, the books of the right tokens, the result
    assert.equal(contest.strikePriceDollars, 100_000.12)
    assert.deepEqual(
      contest.signals.map((s) => [s.minute, s.entryPriceCents]),
      [
        [1, 60.5],
        [6, 60.5],
      ],
    )
    assert.equal(contest.settledSide, 'down')
  })
})
