// One hand-built Kalshi contest for replay tests, as a tape records it: its market through every
// status (listed without a strike until it opens) and a two-sided book. Tests build the spot records
// and decide where books and statuses fall.
export const MINUTE = 60_000
export const OPENS = Date.UTC(2026, 10, 20, 17, 0)
export const CLOSES = OPENS + 15 * MINUTE
export const TICKER = 'KXBTC15M-26NOV201215-15'
export const STRIKE = 100_000

/** The market as a `market` record holds it, in `status`; `extra` overrides fields (result, expiration_value). */
export function tapeMarket(status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ticker: TICKER,
    event_ticker: TICKER.slice(0, TICKER.lastIndexOf('-')),
    status,
    open_time: new Date(OPENS).toISOString(),
    close_time: new Date(CLOSES).toISOString(),
    result: '',
    expiration_value: '',
    ...(status === 'initialized' ? {} : { floor_strike: STRIKE }),
    ...extra,
  }
}

/** up ask 45¢ (1 − 0.55), down ask 60¢ (1 − 0.40) */
export const TAPE_BOOK = {
  orderbook_fp: { yes_dollars: [['0.4000', '10.00']], no_dollars: [['0.5500', '10.00']] },
}
