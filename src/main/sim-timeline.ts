// Which sandbox a store's timeline runs on: its seed and parameters, fixed at the store's first start
// beside its clock anchor (service-clock.ts). A restart without SIM_SEED continues the same world; a
// random seed drawn anew would move the price path under contests already open, settling a contest
// struck on one path on another (a strike of 62,598 settled at 64,733 as `down`).
import { randomInt } from 'node:crypto'
import { type Config, ConfigError } from '../config/config.ts'
import { SIM_PARAMS, type SimParams } from '../feeds/sim/sim-params.ts'
import type { Store } from '../ports/store.ts'

/** The store setting that holds the timeline's sandbox: `{"seed": N, "params": {…}}`. */
export const SIM_WORLD_KEY = 'sim-world'

export type SimWorldIdentity = { seed: number; params: SimParams }

/** A seed for a sandbox nobody named one for. */
export function drawSimSeed(): number {
  return randomInt(1, 2 ** 31)
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The stored sandbox, written by resolveSimWorld itself: every parameter as it was, each group over
 * today's defaults (a parameter added since keeps its default). Null when it is not one.
 */
function parseStored(text: string): SimWorldIdentity | null {
  let stored: unknown
  try {
    stored = JSON.parse(text)
  } catch {
    return null
  }
  if (!isPlainObject(stored) || !isPlainObject(stored.params)) return null
  const { seed, params } = stored
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) return null
  const merged: Record<string, unknown> = {}
  for (const [name, fallback] of Object.entries(SIM_PARAMS)) {
    const value = params[name]
    merged[name] =
      isPlainObject(fallback) && isPlainObject(value) ? { ...fallback, ...value } : (value ?? fallback)
  }
  return { seed, params: merged as SimParams }
}

function readStored(text: string | null): SimWorldIdentity | null {
  if (text === null) return null
  const stored = parseStored(text)
  // never a fresh world in its place: that is the very jump this file exists to prevent
  if (stored === null)
    throw new ConfigError([
      `the store's sandbox setting "${SIM_WORLD_KEY}" is unreadable; start a new timeline in a new store (DATABASE_URL)`,
    ])
  return stored
}

const sameParams = (a: SimParams, b: SimParams): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * The sandbox of this store's timeline: the stored one, or on a first start the one SIM_SEED and
 * SIM_PARAMS name (a drawn seed when none), written for every later start and every process of the
 * deployment (the first written wins). A SIM_SEED or SIM_PARAMS that contradicts the stored one is
 * refused: that world's prices would not be the ones its contests were struck and read on.
 */
export async function resolveSimWorld(
  store: Store,
  config: Pick<Config, 'simSeed' | 'simParams'>,
): Promise<SimWorldIdentity> {
  let stored = readStored(await store.getSetting(SIM_WORLD_KEY))
  if (stored === null) {
    const proposed = { seed: config.simSeed ?? drawSimSeed(), params: config.simParams ?? SIM_PARAMS }
    // another process may have written first: what it wrote is the timeline's
    stored = readStored(await store.initSetting(SIM_WORLD_KEY, JSON.stringify(proposed))) ?? proposed
  }
  return consistent(stored, config)
}

/**
 * The sandbox a start would run on, read without fixing it: the stored one (refusing a contradicting
 * SIM_SEED or SIM_PARAMS, as a start would), or the one SIM_SEED and SIM_PARAMS name on a store that
 * has none yet (a drawn seed when none). For commands that look, never start (`venue check`).
 */
export async function peekSimWorld(
  store: Pick<Store, 'getSetting'>,
  config: Pick<Config, 'simSeed' | 'simParams'>,
): Promise<SimWorldIdentity> {
  const stored = readStored(await store.getSetting(SIM_WORLD_KEY))
  if (stored === null)
    return { seed: config.simSeed ?? drawSimSeed(), params: config.simParams ?? SIM_PARAMS }
  return consistent(stored, config)
}

/** The sandbox this store's timeline was fixed on, null when none was (not a simulator's store). */
export async function storedSimWorld(store: Pick<Store, 'getSetting'>): Promise<SimWorldIdentity | null> {
  return readStored(await store.getSetting(SIM_WORLD_KEY))
}

function consistent(
  stored: SimWorldIdentity,
  config: Pick<Config, 'simSeed' | 'simParams'>,
): SimWorldIdentity {
  const problems: string[] = []
  if (config.simSeed !== null && config.simSeed !== stored.seed)
    problems.push(
      `SIM_SEED: ${config.simSeed} is not this store's timeline seed ${stored.seed} (fixed at its first start); leave SIM_SEED unset to continue it, or start a new timeline in a new store (DATABASE_URL)`,
    )
  if (config.simParams !== null && !sameParams(config.simParams, stored.params))
    problems.push(
      "SIM_PARAMS: differs from this store's timeline settings (fixed at its first start); leave SIM_PARAMS unset to continue it, or start a new timeline in a new store (DATABASE_URL)",
    )
  if (problems.length > 0) throw new ConfigError(problems)
  return stored
}
