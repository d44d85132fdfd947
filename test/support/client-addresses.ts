// Client addresses for tests that speak through a trusted proxy (X-Forwarded-For), so each request
// or test gets a rate-limit bucket of its own. Every address is a valid IPv4 one, however many are
// drawn: a made-up `198.51.100.256` is no address, and the service counts such a request against the
// proxy itself (decisions §5), so every later one would share one bucket.

/** A source of client addresses, each one no earlier call gave (10.0.0.1, 10.0.0.2, …). */
export function clientAddresses(): () => string {
  let n = 0
  return () => {
    n++
    return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
  }
}
