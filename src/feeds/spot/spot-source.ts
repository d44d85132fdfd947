// One exchange as a spot source: keeps a WebSocket subscribed (reconnecting with backoff), polls the
// REST ticker whenever the socket is not delivering, warms up one-minute closes from REST candles,
// and remembers the last mid, when it was seen, and each minute's close.
import { MINUTE_MS } from '../../domain/contest.ts'
import type { WholeMinute } from '../../domain/price-history.ts'
import { createRecentHistory, HELD_MS } from '../../domain/recent-history.ts'
import { createOutageLog, createOutageLogs, OUTAGE_REPEAT_MS } from '../../platform/outage-log.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { SpotTelemetry } from '../../ports/venue.ts'
import { fullJitterDelay } from './backoff.ts'
import { createMinuteBook } from './minute-book.ts'
import { getJson } from './rest-client.ts'
import type {
  ExchangeAdapter,
  MinuteClose,
  PriceObservation,
  SpotEndpoints,
  SpotExchange,
} from './spot-exchange.ts'
import { SpotParseError } from './spot-fields.ts'
import { openWsSession, type WsSession } from './ws-session.ts'

/** Every timer of a source, in ms. The defaults suit the real exchanges; tests shorten them. */
export type SpotSourceTiming = {
  /** a socket silent this long is dead: ~3× the slowest expected heartbeat or keep-alive answer */
  silenceMs: number
  /** REST ticker poll period while the socket is not delivering */
  restPollMs: number
  /** an open socket whose last price is older than this counts as not delivering (quiet markets) */
  quietAfterMs: number
  /** reconnect backoff: full jitter over base·2^attempt, capped */
  backoffBaseMs: number
  backoffCapMs: number
  /** a socket that delivered prices and stayed up this long resets the backoff */
  healthyAfterMs: number
  /** period of client keep-alives for exchanges that need asking (Bitstamp) */
  keepAliveMs: number
  requestTimeoutMs: number
  /** start() waits at most this long for a first price or a first failure, and for the warm-up */
  startTimeoutMs: number
  /** minutes of candles fetched at start: an hour of volatility plus slack */
  warmupMinutes: number
  warmupRetryMs: number
  /** minutes of closes kept in memory */
  keepMinutes: number
}

export const DEFAULT_SPOT_SOURCE_TIMING: Readonly<SpotSourceTiming> = Object.freeze({
  silenceMs: 15_000,
  restPollMs: 2_000,
  quietAfterMs: 5_000,
  backoffBaseMs: 500,
  backoffCapMs: 30_000,
  healthyAfterMs: 10_000,
  keepAliveMs: 5_000,
  requestTimeoutMs: 5_000,
  startTimeoutMs: 5_000,
  warmupMinutes: 70,
  warmupRetryMs: 60_000,
  keepMinutes: 180,
})

/** A source's last price: kept a few seconds back, so a reading sees it as it stood when its book came. */
type HeldMid = Pick<SpotSourceSnapshot, 'mid' | 'midAt' | 'exchangeAt'>
const NO_MID: HeldMid = { mid: null, midAt: null, exchangeAt: null }

export type SpotSourceSnapshot = {
  /** wall ms start() was called; null before */
  startedAt: number | null
  /** wall ms of the last good frame or REST answer */
  lastOkAt: number | null
  mid: number | null
  /** wall ms the mid was received at */
  midAt: number | null
  /** the exchange's own time of a mid that came by socket (ms), when it sends one: a backlog shows as old */
  exchangeAt: number | null
  /** true while the exchange reports maintenance (its quotes are not live) */
  maintenance: boolean
}

export type SpotSource = {
  readonly name: SpotExchange
  /** the source now, its price as it stood at `at` when given (a reading's instant, a moment ago) */
  snapshot(at?: number): SpotSourceSnapshot
  /** close of the one-minute bucket starting at `minuteStart` (epoch ms), from live prices or candles */
  closeOf(minuteStart: number): number | undefined
  /** the minute's highest and lowest live price, when live prices saw it whole (minute-book.ts) */
  wholeMinuteOf(minuteStart: number): WholeMinute | undefined
  /** changes whenever the minute does (minute-book.ts): merged minutes are kept while it holds */
  stampOf(minuteStart: number): number | undefined
  /** resolves on the first price, once socket and REST have both answered without one, or at startTimeoutMs */
  start(): Promise<void>
  close(): Promise<void>
}

export type SpotSourceOptions = {
  adapter: ExchangeAdapter
  endpoints: SpotEndpoints
  wallClock: Clock
  logger: Logger
  timing?: Partial<SpotSourceTiming>
  /** for the backoff jitter */
  random?: () => number
  /**
   * told every price this source accepted, with the instant the source took it at (RECORD_DIR,
   * decisions §12): the recording stamps it with that instant, so a replay sees the price exactly
   * where the live feed did
   */
  onPrice?: (source: SpotExchange, price: PriceObservation, at: number) => void
  /** told the warm-up closes this source loaded (RECORD_DIR) */
  onCloses?: (source: SpotExchange, closes: readonly MinuteClose[]) => void
  /** metrics of this source: its socket, its REST requests, what it could not read (engine roles) */
  telemetry?: SpotTelemetry
}

const errorFields = (err: unknown): Record<string, unknown> =>
  err instanceof SpotParseError
    ? { field: err.field, err: err.message }
    : { err: err instanceof Error ? err.message : String(err) }

export function createSpotSource(opts: SpotSourceOptions): SpotSource {
  const { adapter, endpoints, wallClock, logger, telemetry } = opts
  const t: SpotSourceTiming = { ...DEFAULT_SPOT_SOURCE_TIMING, ...opts.timing }
  const random = opts.random ?? Math.random
  const source = adapter.name
  const book = createMinuteBook({ keepMinutes: t.keepMinutes })
  const aborter = new AbortController()

  let startedAt: number | null = null
  let lastOkAt: number | null = null
  const prices = createRecentHistory<HeldMid>(HELD_MS)
  let maintenance = false
  let closed = false

  let session: WsSession | null = null
  let socketOpen = false
  let openedAtMono: number | null = null
  let pricedThisSocket = false
  /** socket prices seen so far: a REST answer asked for before the latest of them is older than it */
  let socketPrices = 0
  let attempt = 0
  let reconnectTimer: NodeJS.Timeout | undefined
  let pollTimer: NodeJS.Timeout | undefined
  let warmupTimer: NodeJS.Timeout | undefined
  let polling = false
  let restFailing = false
  // an exchange that is down refuses every reconnect (every few seconds, backing off to 30 s): logged
  // as an outage — the first end with its reason, then at most once a minute, then once a socket has
  // delivered prices for a minute (one that prices and drops sooner is a flap of the same outage, not
  // an "ended"/"recovered" pair per flap) — each attempt's wait only at debug
  const socketOutage = createOutageLog(wallClock, {
    steadyMs: OUTAGE_REPEAT_MS,
    what: `spot socket of ${source}`,
    started: 'spot socket ended',
    fail: (fields, message) => logger.warn(fields, message),
    recover: (fields, message) => logger.warn(fields, message),
    context: { source },
    describe: (ended) => ended as Record<string, unknown>,
  })

  // a feed that sends malformed frames (a changed message shape, garbage) may send one with every
  // good one: logged per field as an outage — the first frame with its fault, then at most once a
  // minute with a count, then once that field has parsed cleanly for a minute — not a line per frame
  const malformed = createOutageLogs(
    wallClock,
    (field) => ({
      what: `reading ${source} frames (${field})`,
      started: 'spot frame skipped',
      fail: (fields, message) => logger.warn(fields, message),
      recover: (fields, message) => logger.warn(fields, message),
      context: { source, field },
      describe: (failure) => failure as Record<string, unknown>,
    }),
    100,
  )

  // start() settles on the first price, or once the REST ticker has failed and the socket has either
  // failed or answered without a price yet (Bitstamp's trades channel stays quiet until a trade)
  let socketAnswered = false
  let restFailedOnce = false
  let settleFirst: () => void = () => {}
  const maybeSettleOnFailure = (): void => {
    if (socketAnswered && restFailedOnce) settleFirst()
  }

  // counted where it is logged, by the field named (a fault that names none is not the body's)
  const rejected = (err: unknown): void => {
    if (err instanceof SpotParseError) telemetry?.rejected(err.field)
  }
  const rest = (endpoint: 'ticker' | 'candles', url: string): Promise<unknown> =>
    getJson(url, {
      timeoutMs: t.requestTimeoutMs,
      signal: aborter.signal,
      onStatus: (status) => telemetry?.request(endpoint, status),
    })

  const ok = (): void => {
    lastOkAt = wallClock.now()
  }
  const observe = (price: PriceObservation): void => {
    const now = wallClock.now()
    opts.onPrice?.(source, price, now)
    prices.add({ mid: price.mid, midAt: now, exchangeAt: price.exchangeAt }, now)
    lastOkAt = now
    book.recordLive(now, price.mid)
    settleFirst()
  }

  const onFrame = (text: string): void => {
    let ev: ReturnType<ExchangeAdapter['parseWsMessage']>
    try {
      ev = adapter.parseWsMessage(text)
    } catch (err) {
      const fields = errorFields(err)
      rejected(err)
      malformed.failed(String(fields.field ?? 'frame'), { ...fields, frame: text.slice(0, 200) })
      return
    }
    malformed.succeededWhereQuiet(OUTAGE_REPEAT_MS)
    switch (ev.kind) {
      case 'price':
        socketOutage.succeeded()
        pricedThisSocket = true
        socketPrices++
        observe(ev.price)
        return
      case 'status':
        ok()
        socketAnswered = true
        maybeSettleOnFailure()
        if (maintenance === ev.online)
          logger[ev.online ? 'info' : 'warn'](
            { source, system: ev.note },
            ev.online ? 'spot exchange back online' : 'spot exchange in maintenance; its quotes are left out',
          )
        maintenance = !ev.online
        return
      case 'alive':
        ok()
        socketAnswered = true
        maybeSettleOnFailure()
        return
      case 'rejected':
        logger.error({ source, reason: ev.reason }, 'spot exchange rejected a request')
        return
      case 'reconnect':
        logger.info({ source }, 'spot exchange asked for a reconnect')
        void reconnectNow()
        return
    }
  }

  const connect = (): void => {
    reconnectTimer = undefined
    if (closed) return
    pricedThisSocket = false
    openedAtMono = null
    const keepAliveMessage = adapter.keepAliveMessage
    session = openWsSession({
      url: endpoints.ws,
      subscribe: adapter.subscribeMessages(),
      keepAlive: keepAliveMessage ? { message: keepAliveMessage, everyMs: t.keepAliveMs } : null,
      silenceMs: t.silenceMs,
      onOpen: () => {
        telemetry?.socket(true)
        socketOpen = true
        openedAtMono = performance.now()
      },
      onFrame,
      onEnd: (reason) => {
        telemetry?.socket(false)
        session = null
        socketOpen = false
        // only a connection that proved itself resets the backoff, so a server that accepts and
        // drops at once is not hammered at the base delay
        const healthy =
          pricedThisSocket && openedAtMono !== null && performance.now() - openedAtMono >= t.healthyAfterMs
        if (healthy) attempt = 0
        const delay = fullJitterDelay(attempt++, t.backoffBaseMs, t.backoffCapMs, random)
        logger.debug({ source, reason, retryInMs: delay }, 'spot socket reconnecting')
        socketOutage.failed({ reason, retryInMs: delay })
        socketAnswered = true
        maybeSettleOnFailure()
        void pollRest()
        if (!closed) reconnectTimer = setTimeout(connect, delay)
      },
    })
  }

  const reconnectNow = async (): Promise<void> => {
    const old = session
    session = null
    socketOpen = false
    // a session the exchange asked to end has ended all the same (its onEnd is not called)
    if (old) telemetry?.socket(false)
    clearTimeout(reconnectTimer)
    connect()
    await old?.end()
  }

  const socketDelivering = (): boolean => {
    const midAt = prices.latest()?.midAt
    return socketOpen && midAt != null && pricedThisSocket && wallClock.now() - midAt <= t.quietAfterMs
  }

  const pollRest = async (): Promise<void> => {
    if (closed || polling || socketDelivering()) return
    polling = true
    const socketPricesAsked = socketPrices
    try {
      const body = await rest('ticker', adapter.tickerUrl(endpoints.rest))
      const price = adapter.parseTicker(body)
      if (closed) return
      if (restFailing) logger.info({ source }, 'spot REST ticker answering again')
      restFailing = false
      // the socket priced while the request was out: the answer is older than that price, and would
      // put it back stamped now, in the spot and in the minute's book (seen on a loaded machine,
      // where an answer came after the socket's next frame)
      if (socketPrices !== socketPricesAsked) return
      // an answer to a request made just now is as fresh as its receipt; a REST ticker's own time is
      // the last trade's (Coinbase) or a whole second (Bitstamp), not the book's: only socket frames,
      // which a backlog can delay, are judged by the exchange's clock
      observe({ ...price, exchangeAt: null })
    } catch (err) {
      if (closed) return
      rejected(err)
      // one warning per failing streak: the poll repeats every few seconds
      if (!restFailing) logger.warn({ source, ...errorFields(err) }, 'spot REST ticker failed')
      restFailing = true
      restFailedOnce = true
      maybeSettleOnFailure()
    } finally {
      polling = false
    }
  }

  const warmUp = async (): Promise<void> => {
    warmupTimer = undefined
    try {
      const url = adapter.candlesUrl(endpoints.rest, wallClock.now(), t.warmupMinutes)
      const candles = adapter.parseCandles(await rest('candles', url))
      if (closed) return
      // the newest candle is the unfinished current minute (Kraken documents it, venue facts §4.2):
      // its "close" is only the latest trade, so a candle whose minute has not ended is dropped
      const receivedAt = wallClock.now()
      const closes = candles.filter((c) => c.minuteStart + MINUTE_MS <= receivedAt)
      book.loadCandles(closes)
      opts.onCloses?.(source, closes)
      ok()
      logger.info({ source, minutes: closes.length }, 'spot candles loaded')
    } catch (err) {
      if (closed) return
      rejected(err)
      logger.warn({ source, ...errorFields(err), retryInMs: t.warmupRetryMs }, 'spot candle warm-up failed')
      warmupTimer = setTimeout(() => void warmUp(), t.warmupRetryMs)
    }
  }

  const within = async (work: Promise<void>, ms: number): Promise<void> => {
    let bound: NodeJS.Timeout | undefined
    await Promise.race([work, new Promise<void>((r) => (bound = setTimeout(r, ms)))])
    clearTimeout(bound)
  }

  let started: Promise<void> | null = null

  return {
    name: source,
    snapshot: (at) => ({
      startedAt,
      lastOkAt,
      ...((at === undefined ? prices.latest() : prices.asOf(at)) ?? NO_MID),
      maintenance,
    }),
    closeOf: (minuteStart) => book.closeOf(minuteStart),
    wholeMinuteOf: (minuteStart) => book.wholeMinuteOf(minuteStart),
    stampOf: (minuteStart) => book.stampOf(minuteStart),
    start() {
      if (started) return started
      startedAt = wallClock.now()
      const first = new Promise<void>((resolve) => {
        settleFirst = resolve
      })
      connect()
      // an immediate REST ticker gives a first price before the socket's subscription settles
      void pollRest()
      pollTimer = setInterval(() => void pollRest(), t.restPollMs)
      started = Promise.all([within(first, t.startTimeoutMs), within(warmUp(), t.startTimeoutMs)]).then(
        () => {},
      )
      return started
    },
    async close() {
      if (closed) return
      closed = true
      clearTimeout(reconnectTimer)
      clearInterval(pollTimer)
      clearTimeout(warmupTimer)
      aborter.abort()
      settleFirst()
      const s = session
      session = null
      await s?.end()
    },
  }
}
