// The service's clock as the page reads it from health answers. A simulator may run faster than the
// wall clock, so the page measures how fast the service's time moves and extrapolates between
// answers (and while the service cannot be reached: a closed contest must read closed).
//
// A health answer's time is stamped when the service wrote it and read when the page received it:
// the gap between the two (network, a busy machine) is noise of up to a few hundred milliseconds.
// Two answers a few milliseconds apart (the connect and the history read ask together) would turn
// that noise into any rate at all, so the rate is measured only across at least RATE_SPAN_MS of the
// page's own time.

/** The least span of page time a rate is measured over: 100 ms of noise is then 5 % of it. */
export const RATE_SPAN_MS = 2000

type Reading = { serverAt: number; localAt: number }

export type ServerClock = {
  /** A health answer: the service's time, and the page's when it arrived. */
  observe(serverAt: number, localAt: number): void
  /** The service's time at the page's `localNow`. */
  now(localNow: number): number
  /** Service ms per page ms, once measured (the simulator's speed, 1 on a real venue). */
  readonly rate: number | null
}

export function createServerClock(): ServerClock {
  let last: Reading | null = null
  // where the current rate measurement started: moves only once a span long enough was measured
  let rateFrom: Reading | null = null
  let rate: number | null = null
  return {
    observe(serverAt, localAt) {
      if (!Number.isFinite(serverAt) || !Number.isFinite(localAt)) return
      const reading = { serverAt, localAt }
      if (rateFrom === null || localAt < rateFrom.localAt) rateFrom = reading
      else if (localAt - rateFrom.localAt >= RATE_SPAN_MS) {
        const measured = (serverAt - rateFrom.serverAt) / (localAt - rateFrom.localAt)
        // simulator speeds are whole numbers; a service clock stepping back says nothing of its speed
        if (measured > 0.5) rate = Math.round(measured)
        rateFrom = reading
      }
      last = reading
    },
    now(localNow) {
      if (last === null) return localNow
      return last.serverAt + (localNow - last.localAt) * (rate ?? 1)
    },
    get rate() {
      return rate
    },
  }
}
