// Exchange fixtures that move like a market: an hour of one-minute candles for the model's warm-up
// (decisions §11), and mids that keep every source fresh by drifting a little every second — the
// live exchanges print all the time, and a source that stops is stale.
import type { ExchangeFixtures } from '../fixtures/exchange-fixtures.ts'

const MINUTE = 60_000

type Quote = readonly [bid: number, ask: number]
/** Each source's quote before the drift moves it. */
export type SourceQuotes = { coinbase: Quote; kraken: Quote; bitstamp: Quote }

/** Every source's quote a little around `spot`, each source a little off the others. */
export function quotesAround(spot: number): SourceQuotes {
  return {
    coinbase: [spot - 0.1, spot + 0.1],
    kraken: [spot - 0.2, spot + 0.2],
    bitstamp: [spot - 0.3, spot + 0.1],
  }
}

/** `minutes` one-minute candles ending at the current minute, closing at `close(i)`, on all three sources. */
export function setWarmUpCandles(x: ExchangeFixtures, minutes: number, close: (i: number) => number): void {
  const minuteNow = Math.floor(Date.now() / MINUTE) * MINUTE
  const candles = Array.from({ length: minutes }, (_, i) => ({
    time: (minuteNow - (minutes - i) * MINUTE) / 1000,
    close: close(i),
  }))
  for (const ex of [x.coinbase, x.kraken, x.bitstamp]) ex.setCandles(candles)
}

/** An hour of candles wobbling ±3 USD around `spot`: the model has its minimum history from the start. */
export function setWarmUpHour(x: ExchangeFixtures, spot: number): void {
  setWarmUpCandles(x, 60, (i) => spot + 3 * Math.sin(i))
}

/** Moves every source's quote 0.7 USD up each second, wrapping at 5; returns what stops it. */
export function keepFresh(x: ExchangeFixtures, quotes: SourceQuotes): () => void {
  let drift = 0
  const ticking = setInterval(() => {
    drift = (drift + 0.7) % 5
    x.coinbase.setPrice(quotes.coinbase[0] + drift, quotes.coinbase[1] + drift)
    x.kraken.setPrice(quotes.kraken[0] + drift, quotes.kraken[1] + drift)
    x.bitstamp.setPrice(quotes.bitstamp[0] + drift, quotes.bitstamp[1] + drift)
  }, 1000)
  return () => clearInterval(ticking)
}

/**
 * For a record → replay run: 70 varied candles (so the model's volatility depends on what was
 * recorded), then the drift around `spot` (so each reading's spot does too). Returns what stops it.
 */
export function warmAndDrift(x: ExchangeFixtures, spot: number, swing: number): () => void {
  setWarmUpCandles(x, 70, (i) => spot + swing * Math.sin(i / 3) + (i % 7))
  return keepFresh(x, quotesAround(spot))
}
