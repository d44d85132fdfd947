// SIM_PARAMS (issue 29): the sandbox's settings from one line of text, for the service, `sim tape` and
// `evaluate --sim-seed` alike (the referee must score the world the tape was written from). Three
// forms: a preset's name (`ewma-late`); `name=value` pairs separated by commas, a name being
// `preset` or `group.key` (`preset=shrink,crowd.lagSeconds=5,crowd.spreadTicks=1..10`), a value a
// number, a word, or `lo..hi` for a range; or a JSON object of groups (`{"crowd":{"bias":"floor"}}`,
// with an optional `"preset"`). Unknown names and values of the wrong kind are refused in one line.
import { type CrowdParams, SIM_PARAMS, type SimParams } from './sim-params.ts'

/** The crowd settings of the sweep's presets, each over the default crowd (a past-volatility one). */
export const CROWD_PRESETS: Readonly<Record<string, Partial<CrowdParams>>> = {
  /** the default: EWMA volatility, 2 s late, log-odds bias, 1–3 ticks, 3 % stale, one-sided < 0.5 % */
  ewma: {},
  /** the pre-issue-29 crowd: the true volatility level with noise, on time, no one-sided books */
  informed: {
    volEstimator: 'true',
    volErrorContestSd: 0.1,
    volErrorMinuteSd: 0.05,
    lagSeconds: 0,
    oneSidedBelow: 0,
  },
  /** a slow EWMA (half-life 4 h) quoting 10 s late, a stale book one minute in ten */
  'ewma-late': { ewmaHalfLifeMinutes: 240, lagSeconds: 10, staleQuoteRate: 0.1 },
  /** probability-space shrink toward even odds */
  shrink: { bias: 'shrink', shrink: 0.1 },
  /** a floor under long shots: nothing priced under 2 % (or over 98 %) */
  floor: { bias: 'floor', floor: 0.02 },
  /** the log-odds slope moving from 1.0 at the open to 0.75 at the close */
  drift: { bias: 'drift', gamma: 1, gammaLate: 0.75 },
  /** wide books (1–10 ticks: 1–10 ¢ mid-range) and stale ones: 20 % of minutes open on the previous for 30 s */
  'wide-stale': { spreadTicks: [1, 10], staleQuoteRate: 0.2, staleQuoteMs: 30_000 },
  /** one-sided books below 3 % (and over 97 %) */
  'one-sided': { oneSidedBelow: 0.03 },
}

type Overrides = { [G in keyof SimParams]?: Record<string, unknown> }

/** The params SIM_PARAMS names, or a one-line problem. Empty text: the defaults. */
export function parseSimParams(text: string): SimParams | string {
  const trimmed = text.trim()
  if (trimmed === '') return SIM_PARAMS
  let preset: string | undefined
  const overrides: Overrides = {}
  if (trimmed.startsWith('{')) {
    let json: unknown
    try {
      json = JSON.parse(trimmed)
    } catch {
      return 'SIM_PARAMS is not valid JSON'
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      return 'SIM_PARAMS must be a JSON object'
    for (const [group, values] of Object.entries(json)) {
      if (group === 'preset') {
        if (typeof values !== 'string') return 'SIM_PARAMS: "preset" must be a name'
        preset = values
      } else if (typeof values !== 'object' || values === null || Array.isArray(values))
        return `SIM_PARAMS: "${group}" must be an object of settings`
      else overrides[group as keyof SimParams] = { ...(values as Record<string, unknown>) }
    }
  } else if (!trimmed.includes('=')) preset = trimmed
  else {
    for (const pair of trimmed.split(',')) {
      const eq = pair.indexOf('=')
      if (eq < 0) return `SIM_PARAMS: "${pair.trim()}" is not name=value`
      const name = pair.slice(0, eq).trim()
      const raw = pair.slice(eq + 1).trim()
      if (name === 'preset') {
        preset = raw
        continue
      }
      const [group, key, extra] = name.split('.')
      if (!group || !key || extra !== undefined) return `SIM_PARAMS: "${name}" is not group.key`
      const range = /^(-?[0-9.e]+)\.\.(-?[0-9.e]+)$/.exec(raw)
      const value = range
        ? [Number(range[1]), Number(range[2])]
        : raw !== '' && Number.isFinite(Number(raw))
          ? Number(raw)
          : raw
      const g = overrides[group as keyof SimParams] ?? {}
      g[key] = value
      overrides[group as keyof SimParams] = g
    }
  }
  let base: SimParams = SIM_PARAMS
  let presetCrowd: Partial<CrowdParams> = {}
  if (preset !== undefined) {
    const crowd = CROWD_PRESETS[preset]
    if (!crowd) return `SIM_PARAMS: no preset "${preset}" (known: ${Object.keys(CROWD_PRESETS).join(', ')})`
    presetCrowd = crowd
    base = { ...SIM_PARAMS, crowd: { ...SIM_PARAMS.crowd, ...crowd } }
  }
  const out: Record<string, unknown> = { ...base }
  for (const [group, values] of Object.entries(overrides)) {
    const known = (base as Record<string, unknown>)[group]
    if (typeof known !== 'object' || known === null || Array.isArray(known))
      return `SIM_PARAMS: no group "${group}"`
    const merged: Record<string, unknown> = { ...(known as Record<string, unknown>) }
    for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
      if (!(key in merged)) return `SIM_PARAMS: no setting "${group}.${key}"`
      const problem = kindProblem(merged[key], value) ?? valueProblem(`${group}.${key}`, value)
      if (problem) return `SIM_PARAMS: ${group}.${key} ${problem}`
      merged[key] = value
    }
    out[group] = merged
  }
  return withNamedCrowdOnPolymarket(out as SimParams, { ...presetCrowd, ...overrides.crowd })
}

/**
 * The crowd settings SIM_PARAMS names (a preset's, `crowd.*`) hold on every venue: Polymarket's own
 * crowd settings replace the default crowd's but not these, so `ewma-late` is 10 s late on a
 * Polymarket tape too rather than silently its 4 s.
 */
function withNamedCrowdOnPolymarket(p: SimParams, named: Partial<CrowdParams>): SimParams {
  if (Object.keys(named).length === 0) return p
  return { ...p, polymarket: { ...p.polymarket, crowd: { ...p.polymarket.crowd, ...named } } }
}

// A value of the right kind can still describe no sandbox — a crowd quoting from the future (a
// negative lag), a reversed range, a chance above 1 — and the sandbox must not be run on it. Every
// number is at least 0 but these, and these have bounds of their own.
const SIGNED: ReadonlySet<string> = new Set(['crowd.delta', 'basis.phi'])
const BOUNDS: Readonly<Record<string, readonly [number, number, string]>> = {
  'basis.phi': [-0.999_999, 0.999_999, 'must be inside (−1, 1)'],
  'crowd.shrink': [0, 1, 'must be from 0 to 1'],
  'crowd.floor': [0, 0.499_999, 'must be from 0 to under 0.5'],
  'crowd.oneSidedBelow': [0, 0.499_999, 'must be from 0 to under 0.5'],
  'crowd.gamma': [1e-9, Number.POSITIVE_INFINITY, 'must be above 0'],
  'crowd.gammaLate': [1e-9, Number.POSITIVE_INFINITY, 'must be above 0'],
  'crowd.bookLevels': [1, Number.POSITIVE_INFINITY, 'must be at least 1'],
  'index.studentNu': [2.000_001, Number.POSITIVE_INFINITY, 'must be above 2 (a unit-variance t)'],
  'index.garchBeta': [0, 0.999_999, 'must be from 0 to under 1'],
  'index.garchAlpha': [0, 0.999_999, 'must be from 0 to under 1'],
}
/** Ranges whose low end has a floor above 0: a book is at least one tick wide. */
const RANGE_FLOOR: Readonly<Record<string, number>> = { 'crowd.spreadTicks': 1 }

function valueProblem(name: string, value: unknown): string | null {
  if (typeof value === 'number') {
    const bounds = BOUNDS[name]
    if (bounds) return value >= bounds[0] && value <= bounds[1] ? null : bounds[2]
    if (/Rate$/.test(name)) return value >= 0 && value <= 1 ? null : 'must be a chance from 0 to 1'
    return SIGNED.has(name) || value >= 0 ? null : 'must not be negative'
  }
  if (Array.isArray(value) && value.length === 2) {
    const [lo, hi] = value as [number, number]
    const floor = RANGE_FLOOR[name] ?? 0
    if (lo < floor) return floor === 0 ? 'must not be negative' : `must start at ${floor} or more`
    return lo <= hi ? null : `must be a range lo..hi with lo ≤ hi (got ${lo}..${hi})`
  }
  return null
}

// a value replaces one of the same kind: a number a number, a range a pair, a word one of the words
// the setting takes (checked against the default for the crowd's named forms)
const WORDS: Readonly<Record<string, readonly string[]>> = {
  ewma: ['ewma', 'true'],
  true: ['ewma', 'true'],
  logit: ['logit', 'shrink', 'floor', 'drift'],
}
function kindProblem(known: unknown, value: unknown): string | null {
  if (typeof known === 'number')
    return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number'
  if (Array.isArray(known))
    return Array.isArray(value) && value.length === known.length && value.every((v) => typeof v === 'number')
      ? null
      : `must be a range lo..hi`
  if (typeof known === 'string') {
    const allowed = WORDS[known]
    if (typeof value !== 'string') return 'must be a word'
    return !allowed || allowed.includes(value) ? null : `must be one of ${allowed.join(', ')}`
  }
  return 'cannot be set here'
}
