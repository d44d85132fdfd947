// A series the store has never held is a mistyped --series far more often than an empty history:
// the judging commands say so, rather than print a report whose every figure is a dash.
import type { Store } from '../ports/store.ts'

/** Why the store cannot judge `series` (one line), or null when it holds a contest of it. */
export async function seriesAbsence(
  store: Pick<Store, 'countContests'>,
  series: string,
): Promise<string | null> {
  return (await store.countContests(series)) === 0 ? `the store holds no contest of series ${series}` : null
}
