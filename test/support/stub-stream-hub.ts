// A StreamHub stand-in for HTTP tests: records each attach, writes the retry frame and holds the
// response open until close(), whose duration a test can stretch to observe shutdown.
import type { ServerResponse } from 'node:http'
import type { StreamHub, StreamOpenRequest } from '../../src/stream/stream-hub.ts'

export type StubStreamHub = StreamHub & {
  attached: StreamOpenRequest[]
  /** delay close() by this many ms (tests of the shutdown window) */
  closeDelayMs: number
  /** true once close() was called: the app is shutting down (its preClose hook ran) */
  closing: boolean
}

export function createStubStreamHub(): StubStreamHub {
  const open = new Set<ServerResponse>()
  let closed = false
  const hub: StubStreamHub = {
    attached: [],
    closeDelayMs: 0,
    closing: false,
    async attach(res, request) {
      hub.attached.push(request)
      if (closed) {
        res.end()
        return
      }
      open.add(res)
      res.on('close', () => open.delete(res))
      res.write('retry: 3000\n\n')
    },
    size: () => open.size,
    async close() {
      closed = true
      hub.closing = true
      if (hub.closeDelayMs > 0) await new Promise((r) => setTimeout(r, hub.closeDelayMs))
      for (const res of open) res.end()
      open.clear()
    },
  }
  return hub
}
