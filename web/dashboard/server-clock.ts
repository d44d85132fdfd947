// The service's clock as the page reads it from health answers. A simulator may run faster than the
// wall clock, so the page measures how fast the service's time moves and extrapolates between
// answers (and while the service cannot be reached: a closed contest must read closed).
//
// A health answer's time is stamped by the service somewhere between the page asking and the answer
// arriving, so the page places it at the middle of that round trip, off by at most half of it. On a
// busy machine a round trip takes hundreds of milliseconds: measured over a span of a few seconds,
// that alone would make 60× read anywhere from 45× to 80×. So a speed is taken only across a span long
// enough for the two answers' round trips to bound its error within RATE_TOLERANCE, and never across
// less than RATE_SPAN_MS; until then the span simply grows with the next answer.

/** The least span of page time a rate is measured over. */
export const RATE_SPAN_MS = 2000
/** The largest relative error the two answers' round trips may leave in a measured speed. */
export const RATE_TOLERANCE = 0.05

type Reading = {
  serverAt: number
  /** the middle of the round trip */
  localAt: number
  /** half the round trip: how far off `localAt` can be */
  within: number
}

export type ServerClock = {
  /** A health answer: the service's time, and the page's when it asked and when the answer arrived. */
  observe(serverAt: number, askedAt: number, receivedAt: number): void
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
    observe(serverAt, askedAt, receivedAt) {
      if (![serverAt, askedAt, receivedAt].every(Number.isFinite) || receivedAt < askedAt) return
      const reading = { serverAt, localAt: (askedAt + receivedAt) / 2, within: (receivedAt - askedAt) / 2 }
      if (rateFrom === null || reading.localAt < rateFrom.localAt) rateFrom = reading
      else {
        const span = reading.localAt - rateFrom.localAt
        if (span >= RATE_SPAN_MS && reading.within + rateFrom.within <= RATE_TOLERANCE * span) {
          const measured = (serverAt - rateFrom.serverAt) / span
          // simulator speeds are whole numbers; a service clock stepping back says nothing of its speed
          if (measured > 0.5) rate = Math.round(measured)
          rateFrom = reading
        }
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
