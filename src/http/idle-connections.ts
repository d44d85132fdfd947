// The idle timeout (HTTP_IDLE_TIMEOUT_S, docs/scaling.md "Connection limits"): a connection that has sent
// nothing yet, or has a request open, and on which no byte has moved either way for that long is
// closed, with nothing said. Between requests a keep-alive connection is Node's keepAliveTimeout's,
// and a stream exempts itself (it has its own keep-alives and cut-off). These are the sockets Node's
// own idle timeout (`server.timeout`) covers, but that one re-arms a timer on every read and every
// write of every socket, about 0.4 µs of a cached answer's 20 (BENCHMARKS.md). Here one sweep, every
// tenth of the timeout (at most a second), compares each connection's byte counts with the last
// sweep's: a connection is closed at most two tenths of the timeout after it became due.
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'

const exempt = new WeakSet<Socket>()
const watches = new WeakMap<Server, IdleWatch>()

/** The socket of a stream: never closed for being quiet (stream-handover.ts). */
export function exemptFromIdleTimeout(socket: Socket): void {
  exempt.add(socket)
}

export type IdleWatch = {
  readonly idleMs: number
  /** one sweep now: what the interval runs */
  sweep(): void
  stop(): void
}

/** Node's own field for the response a connection is answering; unset between requests. */
type HttpSocket = Socket & { _httpMessage?: unknown }
type Seen = { bytes: number; since: number }

/**
 * Watches the connections `server` accepts: 'connection', or 'secureConnection' over TLS, where
 * HTTP starts (the handshake has its own timeout).
 */
export function watchIdleConnections(
  server: Server,
  options: { idleMs: number; tls: boolean; now?: () => number },
): IdleWatch {
  const { idleMs } = options
  const now = options.now ?? (() => performance.now())
  const open = new Map<HttpSocket, Seen>()
  const event = options.tls ? 'secureConnection' : 'connection'
  const onConnection = (socket: HttpSocket) => {
    open.set(socket, { bytes: 0, since: now() })
    socket.once('close', () => open.delete(socket))
  }
  server.on(event, onConnection)

  function sweep(): void {
    const t = now()
    for (const [socket, seen] of open) {
      if (exempt.has(socket)) {
        open.delete(socket)
        continue
      }
      const bytes = socket.bytesRead + socket.bytesWritten
      if (bytes !== seen.bytes) {
        seen.bytes = bytes
        seen.since = t
      } else if (t - seen.since >= idleMs && (socket.bytesRead === 0 || socket._httpMessage != null)) {
        open.delete(socket)
        socket.destroy()
      }
    }
  }
  const timer = setInterval(sweep, Math.min(1000, Math.max(10, idleMs / 10)))
  timer.unref()
  const watch: IdleWatch = {
    idleMs,
    sweep,
    stop() {
      clearInterval(timer)
      server.off(event, onConnection)
      watches.delete(server)
    },
  }
  watches.set(server, watch)
  return watch
}

/** The idle timeout a server's connections are watched with, if they are. */
export function idleTimeoutOf(server: Server): number | undefined {
  return watches.get(server)?.idleMs
}
