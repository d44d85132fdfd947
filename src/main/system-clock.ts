// The machine's wall clock, the one Clock implementation that touches the system.
import type { Clock } from '../ports/clock.ts'

export const systemClock: Clock = { now: () => Date.now() }
