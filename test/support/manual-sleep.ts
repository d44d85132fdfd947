// A sleep in the test's hands, for loops that take one (a venue's poll loop): each wait is held,
// with the instant it is due on the test's clock, until the test moves the clock there and lets it go.
import type { ManualClock } from './manual-clock.ts'
import { waitUntil } from './wait.ts'

export type ManualSleep = {
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /** the next wait the loop asks for (its due instant), once it asks */
  next(): Promise<number>
  /** moves the clock to the held wait's due instant and ends the wait */
  fire(): void
}

export function createManualSleep(clock: ManualClock): ManualSleep {
  let held: { at: number; resolve: () => void } | null = null
  return {
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        const at = clock.now() + ms
        held = { at, resolve }
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
      })
    },
    async next() {
      await waitUntil(() => held !== null, 'the loop to wait')
      return held!.at
    },
    fire() {
      const h = held
      if (!h) throw new Error('no wait is held')
      held = null
      clock.set(Math.max(clock.now(), h.at))
      h.resolve()
    },
  }
}
