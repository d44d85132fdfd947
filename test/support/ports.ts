// Loopback ports for tests: one that nothing listens on and that no other test's `listen(0)` is given,
// and whether a port refuses connections.
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'

/** Ports the test machine's own servers listen on, never handed out. */
const WELL_KNOWN = new Set([5432, 6379, 8080, 9090])

/**
 * A loopback port that refuses connections now, below the kernel's ephemeral range, which every
 * `listen(0)` of the concurrent test files draws from. A port taken from `listen(0)` and released can
 * be handed to one of them seconds later, so a client meant to be refused reaches a server, or a
 * service started (or restarted) on it finds it taken; this one stays the test's (two tests drawing
 * the same one of some 20,000 ports at once aside), whether it points a client at nothing or starts a
 * server there.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow()
  for (let tries = 0; tries < 100; tries++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000))
    if (!WELL_KNOWN.has(port) && (await refused(port))) return port
  }
  throw new Error(`no free port found in 10000–${low - 1}`)
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    if (Number.isInteger(low) && low > 11_000) return low
  } catch {
    // not Linux: the IANA range's start
  }
  return 49_152
}

/** Whether a connection to the port on loopback is refused. */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(true))
  })
}
