// Kalshi's `market_lifecycle_v2` events (venue facts §1.11) applied to the market book as they
// happen: openings, strikes, moved closes, pauses and results, on top of REST polling. Only markets
// of the configured series are taken; REST keeps the full view.
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import { parseDollarsMillionths } from './fixed-point.ts'
import type { LifecycleEvent } from './kalshi-socket.ts'
import { type MarketBook, seriesOfTicker } from './market-book.ts'

/** results the WebSocket announced, kept for at most this many markets */
const ANNOUNCED_KEPT = 100

export function createLifecycleApplier(opts: {
  book: MarketBook
  series: readonly string[]
  clock: Clock
  logger: Logger
  /** looks one market up by ticker now */
  refresh(ticker: string): Promise<void>
}): (event: LifecycleEvent) => void {
  const { book, clock } = opts
  // results the WebSocket announced (`determined`), kept apart so a REST page fetched meanwhile,
  // still showing `closed`, cannot make the later `settled` event lose them
  const announced = new Map<string, { result: string; settlementValueMillionths: number | null }>()

  function created(event: LifecycleEvent, now: number): void {
    const { ticker } = event
    // the channel cannot be filtered and carries every Kalshi market: other series' openings are
    // dropped here, silently, rather than warned about one by one (thousands a day)
    if (seriesOfTicker(opts.series, ticker) === null) return
    if (book.get(ticker) || event.openAt === null || event.closeAt === null) return
    book.ingest(
      {
        ticker,
        event_ticker: event.eventTicker,
        status: 'initialized',
        open_time: new Date(event.openAt).toISOString(),
        close_time: new Date(event.closeAt).toISOString(),
        strike_type: event.strikeType,
        result: '',
        expiration_value: '',
      },
      null,
      now,
      'socket',
    )
  }

  function determined(event: LifecycleEvent, now: number): void {
    const { ticker } = event
    if (event.result === null || !book.get(ticker)) return
    const settlementValueMillionths =
      event.settlementValue === null ? null : parseDollarsMillionths(event.settlementValue)
    announced.set(ticker, { result: event.result, settlementValueMillionths })
    if (announced.size > ANNOUNCED_KEPT) announced.delete(announced.keys().next().value as string)
    // provisional: a determined result can still be disputed, so it settles nothing yet
    book.patch(ticker, { status: 'determined', result: event.result, settlementValueMillionths }, now)
  }

  /**
   * `settled` is final (paid out), about ten seconds before REST shows `finalized`: the market is
   * looked up once (for `expiration_value`, when REST has it already) and then taken as finalized with
   * the result the socket announced.
   */
  async function settled(ticker: string): Promise<void> {
    if (!book.get(ticker)) return
    await opts.refresh(ticker)
    const result = announced.get(ticker)
    if (!result) return
    book.patch(ticker, { status: 'finalized', ...result }, clock.now())
    opts.logger.info({ venue: 'kalshi', ticker, result: result.result }, 'kalshi result final by socket')
  }

  return (event) => {
    const now = clock.now()
    const { ticker } = event
    switch (event.eventType) {
      case 'created':
        return created(event, now)
      case 'metadata_updated':
        // a non-positive strike is a placeholder, as on REST (market.ts)
        if (event.floorStrike !== null && event.floorStrike > 0)
          book.patch(ticker, { floorStrike: event.floorStrike }, now)
        return
      case 'close_date_updated': {
        const entry = book.get(ticker)
        if (event.closeAt === null || !entry) return
        // as REST's market (market.ts): a window closes after it opens, or the message is wrong
        if (event.closeAt <= entry.market.openTime) {
          opts.logger.warn(
            { venue: 'kalshi', ticker, closeAt: event.closeAt, openAt: entry.market.openTime },
            'kalshi close_date_updated before the market opens: ignored',
          )
          return
        }
        book.patch(ticker, { closeTime: event.closeAt }, now)
        return
      }
      case 'deactivated':
      case 'activated':
        if (event.deactivated !== null)
          book.patch(ticker, { status: event.deactivated ? 'inactive' : 'active' }, now)
        return
      case 'determined':
        return determined(event, now)
      case 'settled':
        void settled(ticker)
        return
    }
  }
}
