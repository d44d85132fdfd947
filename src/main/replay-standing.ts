// Where a store's replay of a series stands (docs/tapes.md, "A replay that stops part-way"): the
// replay writes it beside the contests, one store setting per series, so that the same command run
// again continues a replay that stopped at a clean point (a signal, a bad tape line), or was killed
// (from its last checkpoint), instead of being refused. The engine's steps are idempotent against
// the store (contest-steps.ts): started again at the instant the stopped replay had reached, with the
// records before it replayed as state, the engine writes exactly what the uninterrupted replay would
// have written after it, and a step a killed run had already taken, wholly or in part, changes nothing.
import type { Store } from '../ports/store.ts'

/** What a replay is: its tape (the files' names and headers) and the options that shape its output. */
export type ReplayIdentity = {
  files: string[]
  venue: string
  tapeSeries: string[]
  tapeFrom: string
  tapeTo: string
  origin: string
  grain: string | null
  series: string[]
  /** --from and --to as given (Unix ms), null when not given */
  from: number | null
  to: number | null
  /** the model's published version: a refit is another replay */
  model: string
}

export type ReplayStanding = {
  identity: ReplayIdentity
  /**
   * running: writing, `reached` its last checkpoint (a replay that ended running was killed: it may
   * have written steps after it); stopped: at a clean point, `reached`; done: it reached its end
   */
  state: 'running' | 'stopped' | 'done'
  /** the tape instant reached (Unix ms): every engine step up to it is in the store (none after it, but while running) */
  reached: number
  /** the command line that runs this replay (and goes on with it), for the operator */
  command: string | null
}

const standingKey = (series: string): string => `replay:${series}`

export async function readStanding(
  store: Pick<Store, 'getSetting'>,
  series: string,
): Promise<ReplayStanding | null> {
  const raw = await store.getSetting(standingKey(series))
  if (raw === null) return null
  try {
    const value = JSON.parse(raw) as ReplayStanding
    if (typeof value !== 'object' || value === null || typeof value.reached !== 'number') return null
    if (value.state !== 'running' && value.state !== 'stopped' && value.state !== 'done') return null
    return value
  } catch {
    return null
  }
}

export async function writeStanding(
  store: Store,
  series: readonly string[],
  standing: ReplayStanding,
): Promise<void> {
  const value = JSON.stringify(standing)
  for (const s of series) await store.putSetting(standingKey(s), value)
}

export const sameReplay = (a: ReplayIdentity, b: ReplayIdentity): boolean =>
  JSON.stringify(a) === JSON.stringify(b)
