// One source's one-minute closes: candles from the warm-up, overwritten by live prices as they come,
// bounded to the most recent minutes.
import { MINUTE_MS } from '../../domain/contest.ts'
import type { MinuteClose } from './spot-exchange.ts'

export type MinuteBook = {
  /** a live mid observed at wall ms `at`: it becomes the close of its minute until a later one arrives */
  recordLive(at: number, mid: number): void
  /** warm-up candles: they fill only minutes no live price has reached */
  loadCandles(closes: readonly MinuteClose[]): void
  /** the close of the minute starting at `minuteStart` (epoch ms), if known */
  closeOf(minuteStart: number): number | undefined
}

type Entry = { close: number; live: boolean }

export function createMinuteBook(opts: { keepMinutes: number }): MinuteBook {
  const entries = new Map<number, Entry>()
  let newest = Number.NEGATIVE_INFINITY

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
      entries.set(minute, { close: mid, live: true })
      noteMinute(minute)
    },
    loadCandles(closes) {
      for (const c of closes) {
        const minute = Math.floor(c.minuteStart / MINUTE_MS) * MINUTE_MS
        if (entries.get(minute)?.live) continue
        entries.set(minute, { close: c.close, live: false })
      }
      // candles can be newer than any live price when the socket has not delivered yet
      const last = closes.at(-1)
      if (last) noteMinute(Math.floor(last.minuteStart / MINUTE_MS) * MINUTE_MS)
      else prune()
    },
    closeOf: (minuteStart) => entries.get(minuteStart)?.close,
  }
}
