// The crowd lag as the tools' reading step measures it (crowd-lag.ts): against the shipped model's
// prices, as the engine measures it, but on every venue, so a candidate or a fit whose file reads
// the lag where the shipped one does not finds it in its readings' inputs (Kalshi's, before the
// shipped file read its index at the lag: `bookReadAtLag`). A model that does not read the lag
// prices those readings exactly as without it.
import type { CrowdLags } from '../src/engine/reading.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'

export function measuredCrowdLags(): CrowdLags {
  return { model: { ...createReadingModel(DEFAULT_MODEL), readsCrowdLag: () => true }, bySeries: new Map() }
}
