// The series and period options that `backtest` and `evaluate` share: --series (else the configured
// first series), --since and --before as instants, since not after before.
import { parseInstant } from '../domain/instant.ts'

export type PeriodArgs = { series: string | undefined; since: string | undefined; before: string | undefined }
export type Period = { series: string; since?: number; before?: number }

/** The period the options name, or what is wrong with them (one line). */
export function parsePeriodArgs(args: PeriodArgs, defaultSeries: string): Period | string {
  const period: Period = { series: args.series ?? defaultSeries }
  if (period.series === '') return '--series must not be empty'
  for (const [name, raw] of [
    ['since', args.since],
    ['before', args.before],
  ] as const) {
    if (raw === undefined) continue
    const ms = parseInstant(raw)
    if (ms === null)
      return `--${name} ${JSON.stringify(raw)} is not an RFC 3339 date-time or a YYYY-MM-DD date`
    period[name] = ms
  }
  if (period.since !== undefined && period.before !== undefined && period.since > period.before)
    return '--since is after --before'
  return period
}
