// Where a store's contests of a series came from, as far as the store says: the sandbox's truth
// (`evaluate --sim-seed`) is the truth of the one sandbox that made them, and of no other contests.
// A replayed tape's origin is kept with the replay (`sim tape` writes "sim seed N"; a recording or
// an import says what it is); `serve` on the simulator fixes its timeline's seed and parameters.
import type { SimParams } from '../feeds/sim/sim-params.ts'
import type { Store } from '../ports/store.ts'
import { readStanding } from './replay-standing.ts'
import { storedSimWorld } from './sim-timeline.ts'

export type StoreOrigin =
  /** the simulator's, of this seed (and these parameters, when the service kept them: a tape does not) */
  | { kind: 'sandbox'; seed: number; params: SimParams | null; what: string }
  /** a replayed tape of another origin: a recording, an import */
  | { kind: 'other'; what: string }

const SIM_TAPE_ORIGIN = /^sim seed ([0-9]+)$/

/** The origin of the store's contests of `series`; null when the store does not say. */
export async function storeOrigin(
  store: Pick<Store, 'getSetting'>,
  series: string,
): Promise<StoreOrigin | null> {
  const standing = await readStanding(store, series)
  const origin: unknown = standing?.identity?.origin
  if (typeof origin === 'string') {
    const what = `replayed from a tape whose origin is ${JSON.stringify(origin)}`
    const seed = SIM_TAPE_ORIGIN.exec(origin)?.[1]
    return seed === undefined
      ? { kind: 'other', what }
      : { kind: 'sandbox', seed: Number(seed), params: null, what }
  }
  const world = await storedSimWorld(store).catch(() => null)
  if (world === null) return null
  return {
    kind: 'sandbox',
    seed: world.seed,
    params: world.params,
    what: `the simulator's timeline of seed ${world.seed}`,
  }
}
