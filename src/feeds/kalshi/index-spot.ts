// BRTI, the settlement index itself, as the model's spot while its prints are fresh (decisions §8):
// relayed by the venue's WebSocket to a keyed client. With it the exchange proxy's basis is zero;
// without it (no key, or the socket down) the exchange median carries on as before.

import { createRecentHistory, HELD_MS } from '../../domain/recent-history.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { PriceFeed, SpotSourceStatus } from '../../ports/venue.ts'
import type { IndexEntitlement } from './index-entitlement.ts'
import type { ReceivedIndexPrint } from './kalshi-socket.ts'

export type IndexSource = { onIndex(handler: (print: ReceivedIndexPrint) => void): void }

export type IndexSpotOptions = {
  /** the exchange median to fall back on */
  proxy: PriceFeed
  index: IndexSource
  /** the index followed; default BRTI */
  id?: string
  /** SPOT_MAX_AGE_S × 1000: a print older than this (by the index's own time) is not fresh */
  maxAgeMs: number
  wallClock: Clock
  /** a source with no print for this long is `down` in health; default 60 s */
  downAfterMs?: number
  /** asked once at start whether the account may read the index (a subscribe ack does not prove it) */
  entitlement?: () => Promise<IndexEntitlement>
  logger?: Logger
}

export function withSettlementIndex(opts: IndexSpotOptions): PriceFeed {
  const { proxy, wallClock, maxAgeMs } = opts
  const id = opts.id ?? 'BRTI'
  const downAfterMs = opts.downAfterMs ?? 60_000
  type Held = { value: number; at: number; receivedAt: number }
  let last: Held | null = null
  // a reading asks for the print that stood when its book came, a moment ago (as the exchange feed)
  const held = createRecentHistory<Held>(HELD_MS)
  let startedAt: number | null = null
  let refused = false
  opts.index.onIndex((print) => {
    if (print.id !== id) return
    if (last === null)
      opts.logger?.info({ index: id }, `${id} flows: its prints are the model's spot while fresh`)
    // prints can arrive out of order after a reconnect: keep the newest by the index's own time
    if (last && print.at < last.at) return
    last = { value: print.value, at: print.at, receivedAt: print.receivedAt }
    held.add(last, print.receivedAt)
  })
  const freshAt = (print: Held | null, now: number): print is Held =>
    print !== null && now - Math.min(print.at, print.receivedAt) <= maxAgeMs
  const fresh = (now: number): boolean => freshAt(last, now)

  const status = (now: number): SpotSourceStatus => {
    const since = last?.receivedAt ?? startedAt ?? now
    return {
      name: id.toLowerCase(),
      // refused: the index will not flow, so it is down now rather than after the silence
      state: (refused && last === null) || now - since > downAfterMs ? 'down' : 'ok',
      lastOkAt: last?.receivedAt ?? null,
      midDollars: last?.value ?? null,
      midAt: last?.receivedAt ?? null,
      fresh: fresh(now),
      lagMs: last === null ? null : Math.round(last.receivedAt - last.at),
      maintenance: false,
      index: fresh(now) ? 'ok' : refused && last === null ? 'refused' : 'stale',
    }
  }

  async function checkEntitlement(): Promise<void> {
    if (!opts.entitlement) return
    const found = await opts
      .entitlement()
      .catch((err: unknown): IndexEntitlement => ({ kind: 'unknown', status: String(err) }))
    if (found.kind === 'refused') {
      refused = true
      opts.logger?.warn(
        { index: id, status: found.status },
        `${id} refused: the account lacks the CF Benchmarks entitlement; the spot stays the exchange median`,
      )
    } else if (found.kind === 'entitled') opts.logger?.info({ index: id }, `${id} entitlement confirmed`)
    else
      opts.logger?.warn(
        { index: id, status: found.status },
        `${id} entitlement not confirmed; its prints will tell whether it flows`,
      )
  }

  return {
    name: proxy.name,
    async spotAt(at) {
      const now = wallClock.now()
      if (last && fresh(now)) return last.value
      return proxy.spotAt(at)
    },
    // the index itself is the spot: no median, so no second source is needed (decisions §8, §11)
    async observeSpot(at) {
      const when = Math.min(at, wallClock.now())
      const print = held.asOf(when)
      if (freshAt(print, when))
        return {
          priceDollars: print.value,
          observedAt: Math.min(print.at, print.receivedAt),
          freshSources: 1,
          index: id,
        }
      return proxy.observeSpot(at)
    },
    minuteClosesBefore: (at, count) => proxy.minuteClosesBefore(at, count),
    stampedClosesBefore: (at, count) => proxy.stampedClosesBefore(at, count),
    sources: () => [...proxy.sources(), status(wallClock.now())],
    async start() {
      startedAt = wallClock.now()
      void checkEntitlement()
      await proxy.start()
    },
    close: () => proxy.close(),
  }
}
