// Live recording (decisions §12, RECORD_DIR): what the engine received from the venue and the spot
// sources, written as one tape per UTC day (`tape-YYYY-MM-DD.ndjson.gz`). Records are buffered and a
// complete gzip member is appended every couple of seconds, so a killed process loses at most those
// seconds; a day file left with a cut last member is repaired (cut back to its last complete line)
// before it is appended to. A market body that did not change since its ticker's last record is not
// written again: replay sees the same latest body either way. Day files older than
// RECORD_KEEP_DAYS are removed.
import { readdir, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { TapeHeader, TapeRecord } from './tape-format.ts'
import { openTape } from './tape-reader.ts'
import { createTapeWriter, type TapeWriter, WRITE_AHEAD_BYTES } from './tape-writer.ts'

const DAY_MS = 86_400_000
export const RECORD_FLUSH_MS = 2_000
const DAY_FILE = /^tape-(\d{4}-\d{2}-\d{2})\.ndjson\.gz$/
/** Tickers whose last body is remembered (for change detection and each new day's opening state). */
const MARKETS_KEPT = 2_000
/**
 * Minute closes per source carried into each new day's file when the caller does not say: an hour of
 * history and slack. The live engine passes what its model reads back (spotKeepMinutes), so a day
 * file replayed on its own warms the model up as the live engine was warmed up.
 */
const CLOSES_KEPT = 70
const MINUTE_MS = 60_000

export type TapeRecorderOptions = {
  dir: string
  keepDays: number
  venue: string
  series: readonly string[]
  sources: readonly string[]
  /** the wall clock: records are stamped with it */
  clock: Clock
  logger: Logger
  origin: string
  flushMs?: number
  /** minute closes per source carried into each new day's file (default 70) */
  closesKept?: number
}

/** A spot price as a source's feed accepted it: a bid and an ask, or a trade price alone. */
export type RecordedSpot = { bid?: number; ask?: number; mid: number; exchangeAt: number | null }

export type TapeRecorder = {
  /** a market body (Kalshi's Market, Polymarket's Gamma event): deduped by its `ticker` (or `slug`) */
  market(raw: unknown): void
  /**
   * an order-book body; `token` names the outcome token's book where the venue has one per token;
   * `at`: the instant the body came (default now), which the record keeps as its `t`
   */
  book(ticker: string, body: unknown, token?: string, at?: number): void
  /** the venue's 404 "no book" for one token's book, answered at `at`: kept as a book record `st: 404` */
  noBook(ticker: string, token: string, at?: number): void
  /** `at`: the instant the feed took the price (default now), which the record keeps as its `t` */
  spot(source: string, price: RecordedSpot, at?: number): void
  /** a source's warm-up minute closes */
  closes(source: string, closes: readonly { minuteStart: number; close: number }[]): void
  exchange(status: unknown): void
  /** a settlement-index print: its value, its own time `at`, and the instant the engine took it */
  index(print: { id: string; value: number; at: number; receivedAt: number }): void
  /** Opens today's file (repairing a cut one) and removes expired ones. */
  start(): Promise<void>
  /** Writes out everything buffered now (the timer does this every couple of seconds). */
  flush(): Promise<void>
  close(): Promise<void>
}

export const dayFileName = (ms: number): string => `tape-${new Date(ms).toISOString().slice(0, 10)}.ndjson.gz`

export function createTapeRecorder(opts: TapeRecorderOptions): TapeRecorder {
  const { clock, logger } = opts
  const flushMs = opts.flushMs ?? RECORD_FLUSH_MS
  const closesKept = opts.closesKept ?? CLOSES_KEPT
  const lastMarket = new Map<string, { text: string; raw: unknown }>()
  let lastExchange: unknown = null
  // per source: minute start → close (warm-up closes, overwritten by live prices), for the next day's file
  const recentCloses = new Map<string, Map<number, number>>()
  const noteClose = (source: string, minuteStart: number, close: number): void => {
    let closes = recentCloses.get(source)
    if (!closes) {
      closes = new Map()
      recentCloses.set(source, closes)
    }
    closes.delete(minuteStart)
    closes.set(minuteStart, close)
    while (closes.size > closesKept) closes.delete(closes.keys().next().value as number)
  }
  let writer: TapeWriter | null = null
  let dayStart = Number.NEGATIVE_INFINITY
  // records that arrived while a day's file was being opened
  let waiting: TapeRecord[] = []
  let opening: Promise<void> | null = null
  let timer: NodeJS.Timeout | undefined
  let closed = false
  let failed = false

  const headerFor = (day: number): TapeHeader => ({
    tape: 1,
    venue: opts.venue,
    series: [...opts.series],
    sources: [...opts.sources],
    from: new Date(day).toISOString(),
    to: new Date(day + DAY_MS).toISOString(),
    origin: opts.origin,
  })

  /** The `t` of the last whole record of an existing day file; a cut last member is cut off first. */
  async function repairAndLastT(file: string): Promise<number | undefined> {
    let truncated = false
    let lastT: number | undefined
    const tape = await openTape(file, {
      onNotice: () => {
        truncated = true
      },
    })
    try {
      for await (const batch of tape.batches()) lastT = batch.at(-1)?.t ?? lastT
    } finally {
      tape.close()
    }
    if (!truncated) return lastT
    // rewrite the whole records into a fresh file and put it in place of the cut one
    // a name that is gzip to the writer and no tape to a directory replay
    const fixed = `${file}.repairing.gz`
    await rm(fixed, { force: true })
    const rewrite = await createTapeWriter(fixed, { header: tape.header })
    const again = await openTape(file)
    try {
      for await (const batch of again.batches()) {
        for (const r of batch) rewrite.write(r)
        if (rewrite.buffered() > WRITE_AHEAD_BYTES) await rewrite.drainTo(WRITE_AHEAD_BYTES / 2)
      }
    } finally {
      again.close()
      await rewrite.close()
    }
    await rename(fixed, file)
    logger.warn({ file }, 'recorded tape had a cut last gzip member; kept every complete line')
    return lastT
  }

  async function removeExpired(now: number): Promise<void> {
    const oldestKept = new Date(Math.floor(now / DAY_MS) * DAY_MS - opts.keepDays * DAY_MS)
      .toISOString()
      .slice(0, 10)
    for (const name of await readdir(opts.dir)) {
      const m = DAY_FILE.exec(name)
      if (m && (m[1] as string) < oldestKept) {
        await rm(path.join(opts.dir, name), { force: true })
        logger.info({ file: name }, 'removed a recorded tape past RECORD_KEEP_DAYS')
      }
    }
  }

  async function openDay(day: number): Promise<void> {
    const previous = writer
    writer = null
    if (previous) await previous.close()
    const file = path.join(opts.dir, dayFileName(day))
    const exists = await stat(file).then(
      (s) => s.size > 0,
      () => false,
    )
    const lastT = exists ? await repairAndLastT(file) : undefined
    const next = await createTapeWriter(file, {
      header: headerFor(day),
      ...(lastT === undefined ? {} : { lastT }),
    })
    // each day file opens with the venue's state and the spot history as last seen, so it replays on its own
    const t = Math.max(day, lastT ?? day)
    if (lastExchange !== null) next.write({ t, k: 'exchange', status: lastExchange })
    for (const { raw } of lastMarket.values()) next.write({ t, k: 'market', m: raw })
    for (const [src, closes] of recentCloses) {
      const c = [...closes].filter(([m]) => m < day).sort((a, b) => a[0] - b[0])
      if (c.length > 0) next.write({ t, k: 'closes', src, c })
    }
    writer = next
    dayStart = day
    await removeExpired(clock.now()).catch((err: unknown) =>
      logger.warn({ err }, 'removing old recorded tapes failed'),
    )
  }

  function put(record: TapeRecord): void {
    if (closed || failed) return
    const day = Math.floor(record.t / DAY_MS) * DAY_MS
    if (opening || day !== dayStart || !writer) {
      waiting.push(record)
      if (!opening) {
        opening = openDay(day)
          .then(() => {
            const held = waiting
            waiting = []
            opening = null
            for (const r of held) put(r)
          })
          .catch((err: unknown) => {
            failed = true
            opening = null
            waiting = []
            logger.error({ err, dir: opts.dir }, 'recording stopped: the day tape cannot be written')
          })
      }
      return
    }
    writer.write(record)
  }

  const flush = (): void => {
    writer?.flush().catch((err: unknown) => {
      if (!failed) logger.error({ err, dir: opts.dir }, 'recording stopped: the tape cannot be written')
      failed = true
    })
  }

  return {
    market(raw) {
      const named = raw as { ticker?: unknown; slug?: unknown } | null
      const ticker = named?.ticker ?? named?.slug
      const text = JSON.stringify(raw)
      if (typeof ticker === 'string') {
        if (lastMarket.get(ticker)?.text === text) return
        lastMarket.delete(ticker)
        if (lastMarket.size >= MARKETS_KEPT) lastMarket.delete(lastMarket.keys().next().value as string)
        lastMarket.set(ticker, { text, raw })
      }
      put({ t: clock.now(), k: 'market', m: raw })
    },
    book(ticker, body, token, at = clock.now()) {
      // the adapter's instant, the one its quote is stamped with: a replay reads the book where live did
      put({ t: at, k: 'book', ticker, ...(token === undefined ? {} : { token }), ob: body })
    },
    noBook(ticker, token, at = clock.now()) {
      // an answer like a body: without it a replay finds no book for that side and skips the minute
      put({ t: at, k: 'book', ticker, token, ob: null, st: 404 })
    },
    spot(source, price, at = clock.now()) {
      // one instant for the record and its minute: the feed's own, not a later reading of the clock
      // (a millisecond can pass between the two, and a price on the other side of a freshness limit
      // or a minute boundary would replay otherwise than it was used live)
      noteClose(source, Math.floor(at / MINUTE_MS) * MINUTE_MS, price.mid)
      const xt = price.exchangeAt === null ? {} : { xt: price.exchangeAt }
      put(
        price.bid !== undefined && price.ask !== undefined
          ? { t: at, k: 'spot', src: source, bid: price.bid, ask: price.ask, ...xt }
          : { t: at, k: 'spot', src: source, px: price.mid, ...xt },
      )
    },
    closes(source, closes) {
      // warm-up closes fill only minutes no live price reached, as in the feed's own minute book
      for (const c of closes)
        if (!recentCloses.get(source)?.has(c.minuteStart)) noteClose(source, c.minuteStart, c.close)
      put({ t: clock.now(), k: 'closes', src: source, c: closes.map((c) => [c.minuteStart, c.close]) })
    },
    exchange(status) {
      // polled every few seconds: written again only when it changes, like a market body
      if (lastExchange !== null && JSON.stringify(lastExchange) === JSON.stringify(status)) return
      lastExchange = status
      put({ t: clock.now(), k: 'exchange', status })
    },
    index(print) {
      // received at `t`, printed at `xt`: the replay's model sees the print's age as live did
      put({ t: print.receivedAt, k: 'index', id: print.id, v: print.value, xt: print.at })
    },
    async start() {
      await removeExpired(clock.now())
      await openDay(Math.floor(clock.now() / DAY_MS) * DAY_MS)
      timer = setInterval(flush, flushMs)
      timer.unref()
      logger.info({ dir: opts.dir, keepDays: opts.keepDays }, 'recording tapes')
    },
    async flush() {
      await opening
      await writer?.flush()
    },
    async close() {
      if (closed) return
      clearInterval(timer)
      // a day's file still opening takes the records that waited for it first
      await opening
      closed = true
      await writer?.close()
    },
  }
}
