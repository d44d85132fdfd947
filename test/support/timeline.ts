// A deployment's virtual timeline chosen by the test: the service continues a timeline it finds in
// its store (src/main/service-clock.ts), so writing one before the first start fixes where virtual
// time begins, whatever the day the test runs on. Without it an accelerated run starts at the wall
// clock's now, and on a Thursday morning in New York that is the venue's weekly trading pause.

import { ANCHOR_KEY } from '../../src/main/service-clock.ts'
import type { Store } from '../../src/ports/store.ts'

/** A Monday noon in New York: hours from the Thursday pause either way. */
export const MONDAY_NOON_NEW_YORK = Date.parse('2026-11-23T17:00:00Z')

/** Starts the timeline of the deployment behind `store` at `virtualStart`, `speed`× the wall clock. */
export async function pinTimeline(store: Store, virtualStart: number, speed: number): Promise<void> {
  await store.putSetting(ANCHOR_KEY, JSON.stringify({ wall0: Date.now(), virtual0: virtualStart, speed }))
}
