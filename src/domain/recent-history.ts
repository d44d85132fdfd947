// What a live source said at an instant a moment ago (decisions §11, §12): a reading is made at the
// instant its book came back, and a replay sees each source's latest record at or before that
// instant. A live feed that answered with its newest value instead would price a tick that arrived
// while the reading was being made, and its replay would differ from it.

import { CROWD_LAG_MAX_S } from './crowd-lag.ts'

/**
 * How far back a live source keeps what it said: a reading asks for the instant its book came, a
 * moment ago (10 s: the seconds its requests took at most), and for the spot of up to
 * CROWD_LAG_MAX_S before that instant, to measure how late the venue's crowd quotes (crowd-lag.ts).
 */
export const HELD_MS = 10_000 + CROWD_LAG_MAX_S * 1_000

export type RecentHistory<T> = {
  /** a value received at `at`; instants never decrease */
  add(value: T, at: number): void
  /** the newest value, or null before the first */
  latest(): T | null
  /** the newest value received at or before `at`, while `at` is within the span kept */
  asOf(at: number): T | null
}

/** Keeps the values of the last `keepMs`, and the one before them (what stood at the span's start). */
export function createRecentHistory<T>(keepMs: number): RecentHistory<T> {
  const held: { value: T; at: number }[] = []
  return {
    add(value, at) {
      held.push({ value, at })
      let drop = 0
      while (drop + 1 < held.length && (held[drop + 1] as { at: number }).at <= at - keepMs) drop++
      if (drop > 0) held.splice(0, drop)
    },
    latest: () => held.at(-1)?.value ?? null,
    asOf(at) {
      for (let i = held.length - 1; i >= 0; i--) {
        const h = held[i] as { value: T; at: number }
        if (h.at <= at) return h.value
      }
      return null
    },
  }
}
