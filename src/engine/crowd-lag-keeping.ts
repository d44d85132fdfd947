// The crowd lag kept across engines (crowd-lag-record.ts): a leader takes up the readings its
// predecessor stored, and stores its own every CROWD_LAG_SAVE_EVERY measuring readings of a series
// and when it stops, so a restart or a failover reads the lag it had, not 0 for the next hours.

import { createCrowdLag } from '../domain/crowd-lag.ts'
import { crowdLagSetting, decodeCrowdLag, encodeCrowdLag } from '../domain/crowd-lag-record.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import type { CrowdLags } from './reading.ts'

/**
 * Measuring readings of one series between two stores of its record: about a quarter hour of one
 * series, so a kill loses at most that, and the record (a day of readings) is not rewritten each minute.
 */
export const CROWD_LAG_SAVE_EVERY = 15

export type CrowdLagKeeper = {
  /**
   * Takes up each series' stored readings up to `now`, and after them any of its own measured since
   * (a record that does not read is logged and left).
   */
  restore(series: readonly string[], now: number): Promise<void>
  /** Stores each series that measured CROWD_LAG_SAVE_EVERY readings since its last store (`all`: any). */
  save(all: boolean): Promise<void>
}

export function createCrowdLagKeeper(deps: {
  store: Pick<Store, 'getSetting' | 'putSetting'>
  lags: CrowdLags['bySeries']
  logger: Logger
}): CrowdLagKeeper {
  const { store, lags, logger } = deps
  // each series' measured() count at its last store (or restore)
  const stored = new Map<string, number>()
  return {
    async restore(series, now) {
      for (const name of series) {
        const text = await store.getSetting(crowdLagSetting(name))
        if (text === null) continue
        const readings = decodeCrowdLag(text)
        if (typeof readings === 'string') {
          logger.warn({ series: name, problem: readings }, 'stored crowd lag unreadable; measuring it afresh')
          continue
        }
        // a record from after `now` (a clock set back) would hold the window open: those readings are left
        const taken = readings.filter((r) => r.at <= now)
        // an engine that led before keeps what it measured since the record was written (a lease
        // regained after a stall finds its own record, a little older than its memory)
        const last = taken.at(-1)?.at ?? Number.NEGATIVE_INFINITY
        const own =
          lags
            .get(name)
            ?.readings()
            .filter((r) => r.at > last) ?? []
        lags.set(name, createCrowdLag([...taken, ...own]))
        // its own are not in the record yet: they count toward the next store
        stored.set(name, -own.length)
      }
    },
    async save(all) {
      for (const [name, crowd] of lags) {
        const since = crowd.measured() - (stored.get(name) ?? 0)
        if (since < (all ? 1 : CROWD_LAG_SAVE_EVERY)) continue
        await store.putSetting(crowdLagSetting(name), encodeCrowdLag(crowd.readings()))
        stored.set(name, crowd.measured())
      }
    },
  }
}
