// Loopback ports for tests: one free to listen on, and one that refuses connections for as long as a
// test needs it to.
import { readFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'

/** A TCP port free right now on loopback, so a server (or a restarted one) can listen on it. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Ports the test machine's servers listen on, never handed out as closed. */
const WELL_KNOWN = new Set([5432, 6379, 8080, 9090])

/**
 * A loopback port that refuses connections now and stays refused: it lies below the kernel's
 * ephemeral range, which every `listen(0)` of the concurrent test files draws from — a port from
 * `freePort()` can be handed to one of them seconds later, and a probe meant to be refused then
 * reaches a server.
 */
export async function closedPort(): Promise<number> {
  const low = ephemeralLow()
  for (let tries = 0; tries < 100; tries++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000))
    if (!WELL_KNOWN.has(port) && (await refused(port))) return port
  }
  throw new Error(`no refused port found in 10000–${low - 1}`)
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
