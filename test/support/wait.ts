// The one home of waiting in tests: poll a probe until it answers (`waitFor`; `waitUntil` for a
// condition, `eventually` for a value a predicate accepts), or bound a promise (`within`), failing
// with a message naming what did not happen.
// A test waits for the event it needs, never for a fixed time (test/README.md).
import { setTimeout as sleep } from 'node:timers/promises'

/** Polls `condition` every 5 ms until it is true; fails after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  await waitFor(what, async () => ((await condition()) ? true : undefined), timeoutMs, 5)
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  while (Date.now() < deadline) {
    try {
      const v = await check()
      if (v !== undefined) return v
    } catch (err) {
      lastError = err
    }
    await sleep(everyMs)
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`)
}

/**
 * Waits until the wall clock reads `instant`: for end-to-end tests whose service and fixture venue
 * run on the wall clock, so the moment a scenario needs (a contest's close) is a wall-clock one.
 */
export async function untilWallClock(instant: number, what: string): Promise<void> {
  await waitFor(
    what,
    () => (Date.now() >= instant ? true : undefined),
    Math.max(0, instant - Date.now()) + 5_000,
    50,
  )
}

/** Polls `probe` until `accept` likes its value and returns that value; fails naming the last one. */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  accept: (v: T) => boolean,
  timeoutMs = 3_000,
): Promise<T> {
  let last: T | undefined
  const accepted = await waitFor(
    'a value the test accepts',
    async () => {
      last = await probe()
      return accept(last) ? { value: last } : undefined
    },
    timeoutMs,
    20,
  ).catch(() => {
    throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(last)}`)
  })
  return accepted.value
}

/** `promise`, or a rejection naming `what` once `timeoutMs` have passed. */
export async function within<T>(promise: Promise<T>, what: string, timeoutMs = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
