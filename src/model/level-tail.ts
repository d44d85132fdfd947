// The tail of the error in a settlement's level (docs/model.md, "The level error's tail"): on
// Polymarket the engine prices its proxy against a strike and a basis it estimates, and that error,
// measured at the venue's own settlements and window edges, is mostly small and now and then large —
// a basis that steps. One variance priced as a normal says a long shot a step would bring in is
// impossible, so the error is priced as a two-point scale mixture measured on the same errors, whose
// mean is the measured variance: the model's choice of strike, which weighs those means, is unchanged.
// A parameter file may carry one per error (venuePools.polymarket.strikeTail, basisTail); the shipped
// file carries none: judged on validation seeds, the mixture did not earn its place (docs/model.md).

/**
 * With chance `share` the level's error has `wide` times its measured variance; otherwise the rest,
 * (1 − share·wide)/(1 − share) times it, so the mixture's mean is the measured variance.
 */
export type LevelTail = { share: number; wide: number }

export type LevelComponent = { weight: number; multiplier: number }

/** The least multiplier the narrow part may keep: a mixture that left it nothing would be a coin. */
export const MIN_NARROW = 0.05

export function narrowMultiplier(tail: LevelTail): number {
  return (1 - tail.share * tail.wide) / (1 - tail.share)
}

/** Why `tail` is not a mixture the model can price, or null when it is. */
export function levelTailProblem(tail: unknown): string | null {
  const t = tail as Partial<LevelTail> | null
  if (typeof t !== 'object' || t === null) return 'must be an object'
  if (typeof t.share !== 'number' || !(t.share > 0 && t.share < 1)) return 'share must be within (0, 1)'
  if (typeof t.wide !== 'number' || !(t.wide >= 1) || !Number.isFinite(t.wide)) return 'wide must be ≥ 1'
  if (!(narrowMultiplier(t as LevelTail) >= MIN_NARROW))
    return `share × wide must leave the narrow part at least ${MIN_NARROW} of the variance`
  return null
}

/** The mixture's parts, their weights summing to 1 and their weighted multipliers to 1. */
export function levelComponents(tail: LevelTail): LevelComponent[] {
  return [
    { weight: 1 - tail.share, multiplier: narrowMultiplier(tail) },
    { weight: tail.share, multiplier: tail.wide },
  ]
}

/**
 * P(up) with the level's error a mixture: `probabilityAt(sd)` is the model's P(up) at a settlement
 * sd, `variance` the whole variance priced, `measured` the part of it the tail scales.
 */
export function probabilityWithLevelTail(
  variance: number,
  measured: number,
  tail: LevelTail,
  probabilityAt: (sd: number) => number,
): number {
  let p = 0
  for (const { weight, multiplier } of levelComponents(tail))
    p += weight * probabilityAt(Math.sqrt(Math.max(0, variance + (multiplier - 1) * measured)))
  return p
}
