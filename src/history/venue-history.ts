// What a venue's history importer gives the command: one UTC day's venue records at a time.
import type { TapeRecord } from '../tape/tape-format.ts'

export const MINUTE_MS = 60_000
export const DAY_MS = 86_400_000

/** A day's venue records (any order; the command sorts) and what they hold, for the summary. */
export type DayRecords = {
  records: TapeRecord[]
  /** contests that open in the day */
  contests: number
  /** book records written */
  books: number
  /** minute boundaries of the day's contests the venue had no quote for (left empty) */
  gaps: number
  /**
   * Windows with records in the day that the venue has not resolved yet: the day is not history
   * yet, so it is not written (a written day is never fetched again) and a later run takes it.
   */
  pending?: string[]
}

export type VenueHistory = {
  /** the endpoints read, for the header's `origin` */
  readonly origin: string
  /** Every venue record with `t` in [dayStart, dayStart + 1 day). */
  day(dayStart: number): Promise<DayRecords>
}
