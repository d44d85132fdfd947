// The venue's WebSocket, with an API key only (venue facts §1.11): a signed handshake, then
// `market_lifecycle_v2` (openings, strikes, closes and results as they happen) and
// `cfbenchmarks_value` (BRTI, the settlement index, about once a second). Reconnects with full-jitter
// backoff and subscribes again each time. Everything here is an extra: REST polling stays complete
// on its own, so an outage costs a metric and a log line, nothing else.
import { createOutageLog } from '../../platform/outage-log.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { VenueTelemetry } from '../../ports/venue.ts'
import { type BackoffOptions, retryDelayMs } from '../venue-http/retry-backoff.ts'
import { KALSHI_USER_AGENT } from './kalshi-client.ts'
import type { RequestSigner } from './request-signing.ts'

/** One `market_lifecycle_v2` message's `msg` (fields per the venue's AsyncAPI; only these are used). */
export type LifecycleEvent = {
  eventType: string
  ticker: string
  /** epoch ms, on `created` and `close_date_updated` */
  openAt: number | null
  closeAt: number | null
  floorStrike: number | null
  /** `yes`/`no` on `determined` */
  result: string | null
  /** the YES payout in dollars as a string, on `determined` */
  settlementValue: string | null
  /** on `activated` / `deactivated` */
  deactivated: boolean | null
  eventTicker: string | null
  strikeType: string | null
}

/** One settlement-index print: `at` is the index's own time (epoch ms). */
export type IndexPrint = { id: string; value: number; at: number }
/** A print as the engine took it: `receivedAt`, one instant for the model's spot and the recording. */
export type ReceivedIndexPrint = IndexPrint & { receivedAt: number }

export type SocketFrame =
  | { kind: 'lifecycle'; event: LifecycleEvent }
  | { kind: 'index'; print: IndexPrint }
  | { kind: 'subscribed'; channel: string }
  | { kind: 'error'; code: number | null; message: string }
  | { kind: 'other' }

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
/**
 * Unix seconds (venue facts §1.7) of an instant this century, in ms; anything else (milliseconds or
 * microseconds sent by mistake, a negative or zero placeholder) is no instant: the field is dropped
 * rather than put on a market as a close in 1970 or the year 58,704.
 */
const PLAUSIBLE_SECONDS = { from: Date.UTC(2000, 0, 1) / 1000, to: Date.UTC(2100, 0, 1) / 1000 }
const secondsToMs = (v: unknown): number | null => {
  const n = num(v)
  return n === null || n < PLAUSIBLE_SECONDS.from || n >= PLAUSIBLE_SECONDS.to ? null : n * 1000
}

/**
 * One server frame, or null when it is not one this adapter can read (counted by the caller). The
 * CF Benchmarks frame inside `cfbenchmarks_value` is itself a JSON string: parsed twice
 * (venue facts §1.11, §4.4).
 */
export function parseSocketFrame(text: string): SocketFrame | null {
  let frame: unknown
  try {
    frame = JSON.parse(text)
  } catch {
    return null
  }
  if (!isRecord(frame) || typeof frame.type !== 'string') return null
  const msg = isRecord(frame.msg) ? frame.msg : null
  switch (frame.type) {
    case 'subscribed':
      return { kind: 'subscribed', channel: str(msg?.channel) ?? '' }
    case 'error':
      return { kind: 'error', code: num(msg?.code), message: str(msg?.msg) ?? '' }
    case 'market_lifecycle_v2': {
      const ticker = str(msg?.market_ticker)
      const eventType = str(msg?.event_type)
      if (!msg || !ticker || !eventType) return null
      const meta = isRecord(msg.additional_metadata) ? msg.additional_metadata : {}
      return {
        kind: 'lifecycle',
        event: {
          eventType,
          ticker,
          openAt: secondsToMs(msg.open_ts),
          closeAt: secondsToMs(msg.close_ts),
          floorStrike: num(msg.floor_strike),
          result: str(msg.result),
          settlementValue: str(msg.settlement_value),
          deactivated: typeof msg.is_deactivated === 'boolean' ? msg.is_deactivated : null,
          eventTicker: str(meta.event_ticker),
          strikeType: str(msg.strike_type) ?? str(meta.strike_type),
        },
      }
    }
    case 'cfbenchmarks_value': {
      if (!msg || typeof msg.data !== 'string') return null
      let cf: unknown
      try {
        cf = JSON.parse(msg.data)
      } catch {
        return null
      }
      if (!isRecord(cf)) return null
      const value =
        typeof cf.value === 'string' && /^\d+(\.\d+)?$/.test(cf.value) ? Number(cf.value) : num(cf.value)
      const at = num(cf.time)
      const id = str(cf.id) ?? str(msg.index_id)
      if (value === null || value <= 0 || at === null || id === null) return null
      return { kind: 'index', print: { id, value, at } }
    }
    default:
      return { kind: 'other' }
  }
}

/**
 * The WebSocket URL that goes with a REST base (venue facts §1.1): `https://external-api.kalshi.com/
 * trade-api/v2` → `wss://external-api-ws.kalshi.com/trade-api/ws/v2`; the other hosts serve both on
 * one name; http → ws for a loopback fixture.
 */
export function socketUrlFor(restBase: string): string {
  const url = new URL(restBase)
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:'
  if (url.hostname.startsWith('external-api.'))
    url.hostname = url.hostname.replace('external-api.', 'external-api-ws.')
  url.pathname = url.pathname.replace(/\/trade-api\/v2\/?$/, '/trade-api/ws/v2')
  return url.toString()
}

export type KalshiSocketOptions = {
  url: string
  signer: RequestSigner
  clock: Clock
  logger: Logger
  telemetry?: VenueTelemetry
  /** index ids to follow on `cfbenchmarks_value`; default BRTI */
  indexIds?: readonly string[]
  /** reconnect backoff; default 500 ms doubling to 30 s */
  backoff?: BackoffOptions
  /** a socket silent this long is dead (BRTI prints every second); default 30 s */
  silenceMs?: number
  random?: () => number
}

export type KalshiSocket = {
  onLifecycle(handler: (event: LifecycleEvent) => void): void
  onIndex(handler: (print: ReceivedIndexPrint) => void): void
  connected(): boolean
  start(): void
  close(): Promise<void>
}

/** how long a reconnected socket must keep answering before its outage is over */
export const SOCKET_STEADY_MS = 60_000

export function createKalshiSocket(opts: KalshiSocketOptions): KalshiSocket {
  const { logger, clock } = opts
  const backoff = opts.backoff ?? { baseMs: 500, capMs: 30_000 }
  const silenceMs = opts.silenceMs ?? 30_000
  const random = opts.random ?? Math.random
  const lifecycleHandlers: Array<(e: LifecycleEvent) => void> = []
  const indexHandlers: Array<(p: ReceivedIndexPrint) => void> = []
  let ws: WebSocket | null = null
  let open = false
  let closed = false
  let attempt = 0
  let commandId = 0
  let reconnectTimer: NodeJS.Timeout | undefined
  let silenceTimer: NodeJS.Timeout | undefined
  let printedThisSocket = false
  let everConnected = false
  // a socket refused again and again (every few seconds, backing off to 30 s) is logged as an outage:
  // the first end with its reason, then at most once a minute, then once the venue has answered a
  // socket for a minute — one that subscribes and drops again sooner is a flap of the same outage,
  // not an "ended"/"recovered" pair per flap
  const outage = createOutageLog(clock, {
    steadyMs: SOCKET_STEADY_MS,
    what: 'kalshi socket',
    started: 'kalshi socket ended; REST polling carries on, reconnecting',
    fail: (fields, message) => logger.warn(fields, message),
    recover: (fields, message) => logger.warn(fields, message),
    context: { venue: 'kalshi' },
    describe: (ended) => ended as Record<string, unknown>,
  })

  const subscribeCommands = (): string[] => [
    JSON.stringify({ id: ++commandId, cmd: 'subscribe', params: { channels: ['market_lifecycle_v2'] } }),
    JSON.stringify({
      id: ++commandId,
      cmd: 'subscribe',
      params: { channels: ['cfbenchmarks_value'], index_ids: [...(opts.indexIds ?? ['BRTI'])] },
    }),
  ]

  const armSilence = (socket: WebSocket): void => {
    clearTimeout(silenceTimer)
    silenceTimer = setTimeout(() => end(socket, `no message for ${silenceMs} ms`), silenceMs)
  }

  function end(socket: WebSocket, reason: string): void {
    if (socket !== ws) return
    ws = null
    clearTimeout(silenceTimer)
    try {
      socket.close()
    } catch {
      // already closing
    }
    opts.telemetry?.socket?.(false)
    open = false
    if (closed) return
    // a connection that delivered prints resets the backoff; one refused at once does not
    if (printedThisSocket) attempt = 0
    const delay = retryDelayMs(attempt++, backoff, random)
    logger.debug({ venue: 'kalshi', reason, retryInMs: delay }, 'kalshi socket reconnecting')
    outage.failed({ reason, retryInMs: delay })
    reconnectTimer = setTimeout(connect, delay)
  }

  function onFrame(text: string): void {
    const frame = parseSocketFrame(text)
    if (frame === null) {
      opts.telemetry?.rejected?.('socket', 'frame')
      return
    }
    // the venue answered this socket (a subscription, an event, a print): up again, over once steady
    if (frame.kind === 'subscribed' || frame.kind === 'lifecycle' || frame.kind === 'index')
      outage.succeeded()
    switch (frame.kind) {
      case 'lifecycle':
        for (const h of lifecycleHandlers) h(frame.event)
        return
      case 'index':
        printedThisSocket = true
        {
          const print = { ...frame.print, receivedAt: clock.now() }
          for (const h of indexHandlers) h(print)
        }
        return
      case 'error':
        logger.warn(
          { venue: 'kalshi', code: frame.code, error: frame.message },
          'kalshi socket command refused',
        )
        return
      default:
        return
    }
  }

  function connect(): void {
    reconnectTimer = undefined
    if (closed) return
    printedThisSocket = false
    const url = new URL(opts.url)
    // the handshake is signed like a REST call: timestamp + GET + the socket's path (venue facts §1.11)
    const headers = { 'user-agent': KALSHI_USER_AGENT, ...opts.signer('GET', url, clock.now()) }
    const socket = new WebSocket(url, { headers })
    ws = socket
    socket.binaryType = 'arraybuffer'
    const decoder = new TextDecoder()
    armSilence(socket)
    socket.addEventListener('open', () => {
      if (socket !== ws) return
      open = true
      opts.telemetry?.socket?.(true)
      // the first connect is news; a reconnect ends an outage, whose own line says the socket is
      // back once the venue answers on it (a flapping socket must not repeat this at info)
      logger[everConnected ? 'debug' : 'info']({ venue: 'kalshi', url: opts.url }, 'kalshi socket connected')
      everConnected = true
      for (const command of subscribeCommands()) socket.send(command)
      armSilence(socket)
    })
    socket.addEventListener('message', (e: MessageEvent) => {
      if (socket !== ws) return
      armSilence(socket)
      const text = typeof e.data === 'string' ? e.data : decoder.decode(e.data as ArrayBuffer)
      // a throw here would be uncaught, and end the process: a message nothing foresaw costs itself only
      try {
        onFrame(text)
      } catch (err) {
        opts.telemetry?.rejected?.('socket', 'frame')
        logger.warn(
          { venue: 'kalshi', err: String(err), frame: text.slice(0, 200) },
          'kalshi socket message not applied',
        )
      }
    })
    socket.addEventListener('error', () =>
      end(socket, 'socket error (refused, or the handshake was not accepted)'),
    )
    socket.addEventListener('close', (e: CloseEvent) => end(socket, `closed by peer (code ${e.code})`))
  }

  return {
    onLifecycle: (handler) => void lifecycleHandlers.push(handler),
    onIndex: (handler) => void indexHandlers.push(handler),
    connected: () => open,
    start() {
      if (ws || closed) return
      connect()
    },
    async close() {
      closed = true
      clearTimeout(reconnectTimer)
      clearTimeout(silenceTimer)
      const socket = ws
      ws = null
      if (!socket) return
      const done = new Promise<void>((resolve) =>
        socket.addEventListener('close', () => resolve(), { once: true }),
      )
      try {
        socket.close()
      } catch {
        // already closing
      }
      let bound: NodeJS.Timeout | undefined
      await Promise.race([done, new Promise<void>((r) => (bound = setTimeout(r, 1_000)))])
      clearTimeout(bound)
    },
  }
}
