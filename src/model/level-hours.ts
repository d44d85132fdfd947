// The level error's variance by the hour of the UTC day (docs/model.md, "The level error by hour"):
// on Polymarket the engine prices its proxy against a strike and a basis it estimates, and how far
// that estimate errs need not be the same at every hour — an oracle whose offset to the exchanges
// moves on a schedule errs most in the hours after the move. A parameter file may carry each error's
// variance for each hour a window opens in, measured on the venue's own settlements and window edges
// and shrunk toward the pooled variance (tools/fit/level-hours-fit.ts); an hour it does not carry
// prices the pooled one.

export const HOURS_A_DAY = 24

/** The UTC hour of the day (0–23) an instant falls in. */
export function utcHourOf(at: number): number {
  return new Date(at).getUTCHours()
}

/** The variance a window opening at `opensAt` prices: its hour's where `byHour` has one, else `pooled`. */
export function varianceAtHour(
  byHour: readonly number[] | undefined,
  pooled: number,
  opensAt: number,
): number {
  return byHour?.[utcHourOf(opensAt)] ?? pooled
}

/** Why `byHour` is not a list of hours' variances the model can price, or null when it is. */
export function levelHoursProblem(byHour: unknown): string | null {
  if (!Array.isArray(byHour) || byHour.length !== HOURS_A_DAY)
    return `must be a list of ${HOURS_A_DAY} variances`
  if (!byHour.every((v) => typeof v === 'number' && v >= 0 && Number.isFinite(v)))
    return 'each hour’s variance must be a finite number ≥ 0'
  return null
}
