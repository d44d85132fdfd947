// Moves a process's wall clock (Date.now) by a fixed amount, for end-to-end runs against a venue whose
// windows are the UTC quarter hours (Polymarket's slugs are computed from the clock): the test and
// the service it starts agree on a "now" that sits where the test needs it in a window, and time
// then runs at its normal pace. Durations (timers, timeouts, performance.now) are untouched.
//
// In a child: NODE_OPTIONS=--import <this file's URL> and CLOCK_SHIFT_MS=<ms> (see shiftedClockEnv).
// In the test's own process: shiftDateNow(ms), before any fixture starts.
import { pathToFileURL } from 'node:url'

const realNow = Date.now.bind(Date)

export function shiftDateNow(ms: number): void {
  Date.now = () => realNow() + ms
}

/** The environment that starts a child process on the same shifted clock. */
export function shiftedClockEnv(ms: number): Record<string, string> {
  return { NODE_OPTIONS: `--import ${pathToFileURL(import.meta.filename).href}`, CLOCK_SHIFT_MS: String(ms) }
}

const fromEnv = Number(process.env.CLOCK_SHIFT_MS ?? '0')
if (Number.isFinite(fromEnv) && fromEnv !== 0) shiftDateNow(fromEnv)
