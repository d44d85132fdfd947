// The engine lease (decisions §1: one leader, the rest standby): the holder renews it every third of
// its time to live; a standby asks every half second (a conditional upsert that changes nothing
// while the lease is held), so it takes over within ttl + 0.5 s of the leader dying.

import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import type { RepeatedErrors } from './repeated-errors.ts'

export const STANDBY_RETRY_MS = 500

export type LeaseChange = 'gained' | 'kept' | 'lost' | 'standby'

export type Leadership = {
  /** Renews or tries to take the lease when due; says how leadership changed. */
  check(wallNow: number): Promise<LeaseChange>
  /** True while the lease is ours and not about to lapse. */
  isLeader(wallNow: number): boolean
  /** Gives the lease up so a standby can take over at once. */
  release(): Promise<void>
}

export function createLeadership(opts: {
  store: Pick<Store, 'acquireLease' | 'releaseLease'>
  holderId: string
  ttlMs: number
  logger: Pick<Logger, 'warn'>
  /**
   * where a failed attempt is reported: a store that is down fails every attempt (every half second
   * on a standby), so it is logged once a minute, as the engine's failing steps are
   */
  errors: RepeatedErrors
}): Leadership {
  const { store, holderId, ttlMs, logger, errors } = opts
  const renewEveryMs = Math.max(1, Math.floor(ttlMs / 3))
  const standbyEveryMs = Math.min(renewEveryMs, STANDBY_RETRY_MS)
  // stop acting a little before the lease lapses, so two engines never both believe they lead
  const marginMs = Math.floor(ttlMs / 6)
  let leader = false
  let validUntil = Number.NEGATIVE_INFINITY
  let lastAttempt = Number.NEGATIVE_INFINITY

  const valid = (wallNow: number): boolean => leader && wallNow < validUntil - marginMs

  return {
    async check(wallNow) {
      const held = leader
      if (wallNow - lastAttempt < (held ? renewEveryMs : standbyEveryMs)) {
        if (held && !valid(wallNow)) {
          leader = false
          logger.warn({ holderId }, 'engine lease lapsed before it could be renewed')
          return 'lost'
        }
        return held ? 'kept' : 'standby'
      }
      lastAttempt = wallNow
      try {
        const lease = await store.acquireLease(holderId, wallNow, ttlMs)
        if (lease.holder === holderId && lease.expiresAt > wallNow) {
          // uninterrupted only if our previous lease had not run out: nobody else could have led
          const continuous = held && wallNow < validUntil
          leader = true
          validUntil = lease.expiresAt
          return continuous ? 'kept' : 'gained'
        }
        if (held) logger.warn({ holderId, holder: lease.holder }, 'engine lease taken over by another engine')
        leader = false
        return held ? 'lost' : 'standby'
      } catch (err) {
        // keep leading on the lease we have until it is about to run out; the next tick retries
        errors.error({ err }, 'engine lease renewal failed')
        if (valid(wallNow)) return 'kept'
        leader = false
        return held ? 'lost' : 'standby'
      }
    },
    isLeader: valid,
    async release() {
      if (!leader) return
      leader = false
      validUntil = Number.NEGATIVE_INFINITY
      lastAttempt = Number.NEGATIVE_INFINITY
      await store.releaseLease(holderId)
    },
  }
}
