// Exchange fixtures that move like a market for a record → replay run: an hour of varied one-minute
// candles for the warm-up (so the model's volatility depends on what was recorded), then the three
// mids drifting a little every second around `spot` (so each reading's spot does too).
import type { ExchangeFixtures } from '../fixtures/exchange-fixtures.ts'

const MINUTE = 60_000

/** Sets the candles and starts the drift; returns what stops it. */
export function warmAndDrift(x: ExchangeFixtures, spot: number, swing: number): () => void {
  const minuteNow = Math.floor(Date.now() / MINUTE) * MINUTE
  const candles = Array.from({ length: 70 }, (_, i) => ({
    time: (minuteNow - (70 - i) * MINUTE) / 1000,
    close: spot + swing * Math.sin(i / 3) + (i % 7),
  }))
  for (const ex of [x.coinbase, x.kraken, x.bitstamp]) ex.setCandles(candles)
  let drift = 0
  const ticking = setInterval(() => {
    drift = (drift + 0.7) % 5
    x.coinbase.setPrice(spot - 0.1 + drift, spot + 0.1 + drift)
    x.kraken.setPrice(spot - 0.2 + drift, spot + 0.2 + drift)
    x.bitstamp.setPrice(spot - 0.3 + drift, spot + 0.1 + drift)
  }, 1000)
  return () => clearInterval(ticking)
}
