// One clock port for the engine, the stream and the rate limiter (decisions §2: timestamps on the
// virtual clock; rate limiting, keep-alives and timeouts on the wall clock).
export interface Clock {
  /** epoch milliseconds */
  now(): number
}
