// The venue contract's worlds on tapes (test/venue-contract.ts): a tape written for the contract's
// story, played into the replay's one tape venue on Kalshi's or Polymarket's book (through the registry) on a replay clock, each step
// of the story an instant of the tape. A tape is fixed before it plays, so a void (another ending of
// the same contest) is left to the live adapters, which map results through the same code.

import { createReplayClock } from '../../src/feeds/tape/replay-clock.ts'
import { createTapePlayer, type TapePlayer } from '../../src/feeds/tape/tape-player.ts'
import type { TapeVenue, TapeVenueOptions } from '../../src/feeds/tape/tape-venue.ts'
import { tapeVenueOf, VENUE_KINDS } from '../../src/main/venue-kinds.ts'
import type { TapeRecord } from '../../src/tape/tape-format.ts'
import { makeMarket } from '../fixtures/kalshi-fixture.ts'
import {
  DOWN_TOKEN,
  makeBook,
  makeGammaEvent,
  resolvedGammaEvent,
  UP_TOKEN,
} from '../fixtures/polymarket-bodies.ts'
import type { ContractWorld } from '../venue-contract.ts'
import { createRecordingLogger } from './engine-world.ts'

const MINUTE = 60_000
const OPENS = Date.UTC(2026, 10, 20, 17, 0)
const CLOSES = OPENS + 15 * MINUTE
const BOOK_EVERY_MS = 10_000
/** inside the window: no book recorded for half a minute from here (a request that times out) */
const NO_BOOKS_AT = OPENS + 6 * MINUTE
/** inside the window: the book recorded here does not parse */
const BAD_BOOK_AT = OPENS + 9 * MINUTE

type Played = { venue: TapeVenue; advanceTo(t: number): Promise<number> }

/** `records` played into the venue `make` builds, on a clock that starts before the first. */
function play(make: (opts: TapeVenueOptions) => TapeVenue, series: string, records: TapeRecord[]): Played {
  records.sort((a, b) => a.t - b.t)
  const clock = createReplayClock(Number.NEGATIVE_INFINITY)
  let player: TapePlayer | null = null
  const venue = make({ series: [series], clock, logger: createRecordingLogger(), player: () => player! })
  async function* batches() {
    yield records
  }
  player = createTapePlayer(batches()[Symbol.asyncIterator](), (r) =>
    r.k === 'market' || r.k === 'exchange' ? venue.take(r) : false,
  )
  const p = player
  return {
    venue,
    async advanceTo(t) {
      while (clock.now() < t) clock.advanceTo(await p.playUntil(t))
      return clock.now()
    },
  }
}

/** Book records of the window every 10 s, but for the contract's gap and its bad body. */
function bookTimes(): number[] {
  const out: number[] = []
  for (let t = OPENS; t < CLOSES; t += BOOK_EVERY_MS)
    if (t < NO_BOOKS_AT || t >= NO_BOOKS_AT + 30_000) out.push(t)
  return out
}

export function kalshiTapeWorld(): ContractWorld {
  const SERIES = 'KXBTC15M'
  const market = makeMarket({ series: SERIES, openTime: OPENS, closeTime: CLOSES, status: 'initialized' })
  const body = (patch: Record<string, unknown>) => ({ ...market, ...patch })
  const earlier = makeMarket({
    series: SERIES,
    openTime: OPENS - 15 * MINUTE,
    closeTime: OPENS,
    status: 'finalized',
    floorStrike: 68_400.5,
    result: 'yes',
    expirationValue: '68,410.12',
  })
  const exchange = (trading: boolean) => ({ exchange_active: true, trading_active: trading })
  const records: TapeRecord[] = [
    { t: OPENS - 20 * MINUTE, k: 'exchange', status: exchange(true) },
    { t: OPENS - 20 * MINUTE, k: 'market', m: earlier },
    { t: OPENS - 20 * MINUTE, k: 'market', m: market },
    { t: OPENS, k: 'market', m: body({ status: 'active', floor_strike: 68_421.37 }) },
    { t: OPENS + MINUTE, k: 'market', m: { ticker: `${SERIES}-26NOV201245-45`, status: 42 } },
    { t: OPENS + 7 * MINUTE, k: 'exchange', status: exchange(false) },
    { t: OPENS + 8 * MINUTE, k: 'exchange', status: exchange(true) },
    { t: CLOSES, k: 'market', m: body({ status: 'closed', floor_strike: 68_421.37 }) },
    {
      t: CLOSES + 3 * MINUTE,
      k: 'market',
      m: body({ status: 'finalized', floor_strike: 68_421.37, result: 'no', expiration_value: '68,411.07' }),
    },
    // the venue shows it otherwise afterwards: reopened, its result cleared
    {
      t: CLOSES + 10 * MINUTE,
      k: 'market',
      m: body({ status: 'active', floor_strike: 68_421.37, result: '' }),
    },
  ]
  for (const t of bookTimes())
    records.push({
      t,
      k: 'book',
      ticker: market.ticker,
      // YES ask = 1 − best NO bid, NO ask = 1 − best YES bid
      ob:
        t === BAD_BOOK_AT
          ? { orderbook_fp: { yes_dollars: [['forty-two', '1']], no_dollars: 'none' } }
          : { orderbook_fp: { yes_dollars: [['0.4200', '13.00']], no_dollars: [['0.5500', '2.00']] } },
    })
  const { venue, advanceTo } = play((o) => tapeVenueOf(VENUE_KINDS.kalshi, o), SERIES, records)
  return {
    venue,
    series: SERIES,
    ticker: market.ticker,
    opensAt: OPENS,
    expiresAt: CLOSES,
    strike: 68_421.37,
    earlier: { opensAt: OPENS - 15 * MINUTE, strike: 68_400.5 },
    live: async () => ({ at: await advanceTo(OPENS + 5 * MINUTE), asks: { up: 45, down: 58 } }),
    expire: () => advanceTo(CLOSES + MINUTE),
    settle: async () => ({ at: await advanceTo(CLOSES + 4 * MINUTE), side: 'down' }),
    contradict: () => advanceTo(CLOSES + 11 * MINUTE),
    pause: () => advanceTo(OPENS + 7 * MINUTE + 30_000),
    resume: () => advanceTo(OPENS + 8 * MINUTE + 30_000),
    timeoutBooks: () => advanceTo(NO_BOOKS_AT + 5_000),
    malformedBook: () => advanceTo(BAD_BOOK_AT),
    malformedMarket: () => advanceTo(OPENS + MINUTE + 1),
    close: () => venue.close(),
  }
}

export function polymarketTapeWorld(): ContractWorld {
  const SERIES = 'btc-updown-15m'
  const startS = OPENS / 1000
  const slug = `${SERIES}-${startS}`
  const live = makeGammaEvent({ startS })
  const records: TapeRecord[] = [
    {
      t: OPENS - 20 * MINUTE,
      k: 'market',
      m: resolvedGammaEvent(
        startS - 900,
        'up',
        { priceToBeat: 83_900.5, finalPrice: 84_012.48 },
        { upToken: '3'.repeat(76), downToken: '4'.repeat(76) },
      ),
    },
    { t: OPENS - 20 * MINUTE, k: 'market', m: live },
    { t: OPENS + MINUTE, k: 'market', m: { slug: `${SERIES}-${startS + 900}`, markets: 'none' } },
    { t: CLOSES + MINUTE, k: 'market', m: makeGammaEvent({ startS, closed: true, acceptingOrders: false }) },
    {
      t: CLOSES + 3 * MINUTE,
      k: 'market',
      m: resolvedGammaEvent(startS, 'down', { priceToBeat: 84_012.48, finalPrice: 83_988.9 }),
    },
    // the venue shows it otherwise afterwards: open again, no resolution
    { t: CLOSES + 10 * MINUTE, k: 'market', m: makeGammaEvent({ startS }) },
  ]
  for (const t of bookTimes())
    for (const [token, bid, ask] of [
      [UP_TOKEN, '0.54', '0.55'],
      [DOWN_TOKEN, '0.45', '0.46'],
    ] as const)
      records.push({
        t,
        k: 'book',
        ticker: slug,
        token,
        ob:
          t === BAD_BOOK_AT
            ? { asset_id: token, bids: 'none', asks: [{ price: 'x', size: '-' }] }
            : makeBook(token, [{ price: bid, size: '10' }], [{ price: ask, size: '10' }]),
      })
  const { venue, advanceTo } = play((o) => tapeVenueOf(VENUE_KINDS.polymarket, o), SERIES, records)
  return {
    venue,
    series: SERIES,
    ticker: slug,
    opensAt: OPENS,
    expiresAt: CLOSES,
    // its own price to beat is not published yet: the previous window's final price stands in, as live
    strike: 84_012.48,
    live: async () => ({ at: await advanceTo(OPENS + 5 * MINUTE), asks: { up: 55, down: 46 } }),
    expire: () => advanceTo(CLOSES + 2 * MINUTE),
    settle: async () => ({ at: await advanceTo(CLOSES + 4 * MINUTE), side: 'down' }),
    contradict: () => advanceTo(CLOSES + 11 * MINUTE),
    timeoutBooks: () => advanceTo(NO_BOOKS_AT + 5_000),
    malformedBook: () => advanceTo(BAD_BOOK_AT),
    malformedMarket: () => advanceTo(OPENS + MINUTE + 1),
    close: () => venue.close(),
  }
}
