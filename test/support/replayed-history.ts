// What a replay leaves in a store of one series, for tests that compare a replay stopped or killed
// part-way with one that ran through: the contests, and the event log (each change once, in order).
import type { Store } from '../../src/ports/store.ts'

export type ReplayedHistory = { contests: unknown[]; events: unknown[] }

export async function replayedHistory(store: Store, series: string): Promise<ReplayedHistory> {
  const settled = await store.listSettled({ series, limit: 100_000 })
  const contests = [...settled, ...(await store.listUnsettled())].sort((a, b) =>
    a.ticker.localeCompare(b.ticker),
  )
  const events = (await store.eventsAfter(0, 1_000_000, { series })).map(({ type, ticker, data }) => ({
    type,
    ticker,
    data,
  }))
  return { contests, events }
}
