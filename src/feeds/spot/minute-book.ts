// One source's one-minute closes: candles from the warm-up, overwritten by live prices as they come,
// bounded to the most recent minutes. Live prices also give what a close alone cannot: each minute's
// range (its highest and lowest mid, counting the price it opened at), which the volatility level
// reads, its mean over the minute's 60 seconds, which a strike is (model v2), and the squared moves
// between those seconds, the sharpest measure of the minute's volatility a feed can give.
import { MINUTE_MS } from '../../domain/contest.ts'
import { MIN_PRICES_FOR_RANGE, type WholeMinute } from '../../domain/price-history.ts'
import type { MinuteClose } from './spot-exchange.ts'

export type MinuteBook = {
  /** a live mid observed at wall ms `at`: it becomes the close of its minute until a later one arrives */
  recordLive(at: number, mid: number): void
  /** warm-up candles: they fill only minutes no live price has reached */
  loadCandles(closes: readonly MinuteClose[]): void
  /** the close of the minute starting at `minuteStart` (epoch ms), if known */
  closeOf(minuteStart: number): number | undefined
  /**
   * The minute as live prices showed it: known when the source's previous price came in the minute
   * before (so the price the minute opened at is counted) and at least MIN_PRICES_FOR_RANGE came in it.
   */
  wholeMinuteOf(minuteStart: number): WholeMinute | undefined
  /**
   * A token that changes whenever the minute's entry does (a price, a candle, its removal): what a
   * merged minute was made from is still there exactly when every source's token is the same.
   */
  stampOf(minuteStart: number): number | undefined
}

type Entry = {
  close: number
  live: boolean
  high: number
  low: number
  prices: number
  opened: boolean
  /** the sum of the prices in force at the minute's whole seconds 1…`seconds` so far */
  secondsSum: number
  seconds: number
  /** the price in force at whole second `seconds` and the log move into it from the second before */
  lastPrice: number
  lastMove: number
  /** sums of the squared moves and of each move times the one before, seconds 1…`seconds` */
  squares: number
  crosses: number
  largest: number
  /** taken from `stamps` at each change of the entry */
  stamp: number
}

const SECONDS_PER_MINUTE = 60

// One sequence for every book, so a token never repeats, even for an entry removed and made again.
let stamps = 0

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
        countSeconds(entry, minute, at, entry.close)
        entry.close = mid
        entry.high = Math.max(entry.high, mid)
        entry.low = Math.min(entry.low, mid)
        entry.prices++
        entry.stamp = ++stamps
      } else {
        // the minute's first live price: it opened where the source's last price left it
        const open = lastLive !== null && lastLive.minute === minute - MINUTE_MS ? lastLive.mid : null
        const made: Entry = {
          close: mid,
          live: true,
          high: Math.max(mid, open ?? mid),
          low: Math.min(mid, open ?? mid),
          prices: 1,
          opened: open !== null,
          secondsSum: 0,
          seconds: 0,
          lastPrice: open ?? mid,
          lastMove: 0,
          squares: 0,
          crosses: 0,
          largest: 0,
          stamp: ++stamps,
        }
        // the seconds before the first price inside the minute are the open's
        countSeconds(made, minute, at, open ?? mid)
        entries.set(minute, made)
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
          secondsSum: 0,
          seconds: 0,
          lastPrice: c.close,
          lastMove: 0,
          squares: 0,
          crosses: 0,
          largest: 0,
          stamp: ++stamps,
        })
      }
      // candles can be newer than any live price when the socket has not delivered yet
      const last = closes.at(-1)
      if (last) noteMinute(Math.floor(last.minuteStart / MINUTE_MS) * MINUTE_MS)
      else prune()
    },
    closeOf: (minuteStart) => entries.get(minuteStart)?.close,
    stampOf: (minuteStart) => entries.get(minuteStart)?.stamp,
    wholeMinuteOf(minuteStart) {
      const e = entries.get(minuteStart)
      if (!(e?.live && e.opened && e.prices >= MIN_PRICES_FOR_RANGE)) return undefined
      // the seconds after the last price are the close's
      const rest = SECONDS_PER_MINUTE - e.seconds
      const move = rest > 0 ? Math.log(e.close / e.lastPrice) : 0
      return {
        high: e.high,
        low: e.low,
        mean: (e.secondsSum + rest * e.close) / SECONDS_PER_MINUTE,
        squares: e.squares + move * move,
        crosses: e.crosses + move * e.lastMove,
        largest: Math.abs(move) > Math.abs(e.largest) ? move : e.largest,
      }
    },
  }
}

/**
 * Credits `inForce`, the price before `at`, to each whole second of the minute at or before `at` not
 * yet counted: a second's price is the last one that came before it.
 */
function countSeconds(e: Entry, minute: number, at: number, inForce: number): void {
  const upTo = Math.min(SECONDS_PER_MINUTE, Math.floor((at - minute) / 1_000))
  if (upTo <= e.seconds) return
  e.secondsSum += (upTo - e.seconds) * inForce
  // the first second credited moves from the last one's price; any after it stay put
  const move = Math.log(inForce / e.lastPrice)
  e.squares += move * move
  e.crosses += move * e.lastMove
  if (Math.abs(move) > Math.abs(e.largest)) e.largest = move
  e.lastMove = upTo - e.seconds > 1 ? 0 : move
  e.lastPrice = inForce
  e.seconds = upTo
}
