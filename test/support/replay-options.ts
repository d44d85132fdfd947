// The options a test's replay runs with, as `contest-signals replay` would take them from the defaults:
// the shipped model, 10 s of spot age and reading lateness, the real clock and a logger the test can
// read. A test passes only what its case is about.

import type { ReplayOptions } from '../../src/main/replay.ts'
import { systemClock } from '../../src/main/system-clock.ts'
import { createReadingModel, DEFAULT_MODEL } from '../../src/model/models.ts'
import { createRecordingLogger } from './engine-world.ts'

export function replayOptions(
  tapePath: string,
  store: ReplayOptions['store'],
  more: Partial<ReplayOptions> = {},
): ReplayOptions {
  return {
    tapePath,
    store,
    logger: createRecordingLogger(),
    spotMaxAgeMs: 10_000,
    model: createReadingModel(DEFAULT_MODEL),
    readingMaxLateMs: 10_000,
    wallClock: systemClock,
    ...more,
  }
}
