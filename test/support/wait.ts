// The one home of waiting in tests: poll a probe until it answers (`waitFor`; `waitUntil` for a
// condition), or bound a promise (`within`), failing with a message naming what did not happen.
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
