// One source's one-minute closes: candles from the warm-up, overwritten by live prices as they come,
// bounded to the most recent minutes. Live prices also give each minute's range (its highest and
// lowest mid, counting the price it opened at), which the volatility level reads (model v2).
import { MINUTE_MS } from '../../domain/contest.ts'
import { MIN_PRICES_FOR_RANGE } from '../../domain/price-history.ts'
import type { MinuteClose } from './spot-exchange.ts'

/** A minute's highest and lowest price. */
export type MinuteRange = { high: number; low: number }

export type MinuteBook = {
  /** a live mid observed at wall ms `at`: it becomes the close of its minute until a later one arrives */
  recordLive(at: number, mid: number): void
  /** warm-up candles: they fill only minutes no live price has reached */
  loadCandles(closes: readonly MinuteClose[]): void
  /** the close of the minute starting at `minuteStart` (epoch ms), if known */
  closeOf(minuteStart: number): number | undefined
  /**
   * The minute's range from live prices: known when the source's previous price came in the minute
   * before (so the price the minute opened at is counted) and at least MIN_PRICES_FOR_RANGE came in it.
   */
  rangeOf(minuteStart: number): MinuteRange | undefined
}

type Entry = { close: number; live: boolean; high: number; low: number; prices: number; opened: boolean }

export function createMinuteBook(opts: { keepMinutes: number }): MinuteBook {
  const entries = new Map<number, Entry>()
  let newest = Number.NEGATIVE_INFINITY
  let lastLive: { minute: number; mid: number } | null = null

  const prune = (): void => {
    const oldestKept = newest - (opts.keepMinutes - 1) * MINUTE_MS
    for (const minute of entries.keys()) if (minute < oldestKept) entries.delete(minute)
  }
  const noteMinute = (minute: number): void => {
    if (minute <= newest) return
    newest = minute
    prune()
  }

  return {
    recordLive(at, mid) {
      const minute = Math.floor(at / MINUTE_MS) * MINUTE_MS
      const entry = entries.get(minute)
      if (entry?.live) {
        entry.close = mid
        entry.high = Math.max(entry.high, mid)
        entry.low = Math.min(entry.low, mid)
        entry.prices++
      } else {
        // the minute's first live price: it opened where the source's last price left it
        const open = lastLive !== null && lastLive.minute === minute - MINUTE_MS ? lastLive.mid : null
        entries.set(minute, {
          close: mid,
          live: true,
          high: Math.max(mid, open ?? mid),
          low: Math.min(mid, open ?? mid),
          prices: 1,
          opened: open !== null,
        })
      }
      lastLive = { minute, mid }
      noteMinute(minute)
    },
    loadCandles(closes) {
      for (const c of closes) {
        const minute = Math.floor(c.minuteStart / MINUTE_MS) * MINUTE_MS
        if (entries.get(minute)?.live) continue
        entries.set(minute, {
          close: c.close,
          live: false,
          high: c.close,
          low: c.close,
          prices: 0,
          opened: false,
        })
      }
      // candles can be newer than any live price when the socket has not delivered yet
      const last = closes.at(-1)
      if (last) noteMinute(Math.floor(last.minuteStart / MINUTE_MS) * MINUTE_MS)
      else prune()
    },
    closeOf: (minuteStart) => entries.get(minuteStart)?.close,
    rangeOf(minuteStart) {
      const e = entries.get(minuteStart)
      return e?.live && e.opened && e.prices >= MIN_PRICES_FOR_RANGE
        ? { high: e.high, low: e.low }
        : undefined
    },
  }
}
