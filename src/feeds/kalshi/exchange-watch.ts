// Kalshi's exchange-wide word on trading (venue facts §1.13): `GET /exchange/status` once a poll (a
// few dozen bytes) and the schedule now and then, so a pause the exchange declares holds every
// reading and an outage inside a pause it scheduled is no fault. Optional: a failure holds up nothing.
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import {
  type ExchangeSchedule,
  type ExchangeStatus,
  isScheduledPause,
  parseExchangeStatus,
  parseSchedule,
} from './exchange-status.ts'
import type { KalshiClient } from './kalshi-client.ts'

/** An exchange status older than this says nothing about now (several missed polls). */
const EXCHANGE_STATUS_TTL_MS = 60_000

export type ExchangeWatch = {
  /** reads the status, and the schedule when it is due */
  read(signal: AbortSignal): Promise<void>
  /** the last status (fresh) says trading is paused */
  tradingPaused(): boolean
  /** `now` is inside a pause the schedule announced; never for a venue not reached since start */
  scheduledPause(now: number, lastOkAt: number | null): boolean
}

export function createExchangeWatch(opts: {
  client: KalshiClient
  clock: Clock
  logger: Logger
  /** the schedule is re-read this often */
  scheduleEveryMs: number
  rejected(endpoint: string, field: string): void
  /** each status body the watch could read (a replay pauses on it as live does) */
  onStatus?: (body: unknown) => void
}): ExchangeWatch {
  const { client, clock, logger, rejected } = opts
  let exchange: { status: ExchangeStatus; at: number } | null = null
  let schedule: ExchangeSchedule | null = null
  let scheduleAt = Number.NEGATIVE_INFINITY
  let scheduleUnreadableLogged = false

  function took(status: ExchangeStatus, body: unknown): void {
    if (exchange?.status.tradingActive !== status.tradingActive)
      logger.info(
        { venue: 'kalshi', tradingActive: status.tradingActive, exchangeActive: status.exchangeActive },
        status.tradingActive ? 'kalshi trading active' : 'kalshi trading paused',
      )
    // trading just stopped: a pause announced minutes ago is not in the hourly copy, so the
    // schedule is read again now rather than calling a planned pause an outage
    if (exchange?.status.tradingActive !== false && !status.tradingActive)
      scheduleAt = Number.NEGATIVE_INFINITY
    exchange = { status, at: clock.now() }
    opts.onStatus?.(body)
  }

  async function readSchedule(signal: AbortSignal): Promise<void> {
    const answer = await client.get('exchange_schedule', '/exchange/schedule', {}, { signal, maxAttempts: 1 })
    if (!answer.ok) return
    const parsed = parseSchedule(answer.body)
    if (!parsed.ok) return rejected('exchange_schedule', parsed.field)
    schedule = parsed.value
    scheduleAt = clock.now()
    if (schedule.unreadableTemplates > 0 && !scheduleUnreadableLogged) {
      scheduleUnreadableLogged = true
      logger.warn(
        { venue: 'kalshi', templates: schedule.unreadableTemplates },
        'kalshi schedule has sessions that do not parse; their hours are not taken as scheduled pauses',
      )
    }
  }

  return {
    async read(signal) {
      // the status is read from an error answer too (the venue sends it with a 503 during maintenance)
      const reply = await client.get('exchange_status', '/exchange/status', {}, { signal, maxAttempts: 1 })
      if (reply.body !== undefined) {
        const status = parseExchangeStatus(reply.body)
        if (status.ok) took(status.value, reply.body)
        else if (reply.ok) rejected('exchange_status', status.field)
      }
      if (clock.now() - scheduleAt >= opts.scheduleEveryMs) await readSchedule(signal)
    },
    tradingPaused: () =>
      exchange !== null &&
      clock.now() - exchange.at <= EXCHANGE_STATUS_TTL_MS &&
      !exchange.status.tradingActive,
    // a venue never reached since start is a configuration fault (a 451, a wrong URL), whatever the day
    scheduledPause: (now, lastOkAt) =>
      (lastOkAt !== null || schedule !== null) && isScheduledPause(schedule, now),
  }
}
