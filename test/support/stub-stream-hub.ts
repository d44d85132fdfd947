// A StreamHub stand-in for HTTP tests: records each attach, writes the retry frame and holds the
// response open until close(), which a test can hold open to observe shutdown.
import type { ServerResponse } from 'node:http'
import type { StreamHub } from '../../src/stream/stream-hub.ts'
import type { StreamOpenRequest } from '../../src/stream/stream-resume.ts'
import { createGate, type Gate } from './gate.ts'

export type StubStreamHub = StreamHub & {
  attached: StreamOpenRequest[]
  /** close() passes this gate: hold it to keep the shutdown window open (tests of shutdown) */
  closeGate: Gate
  /** true once close() was called: the app is shutting down (its preClose hook ran) */
  closing: boolean
}

export function createStubStreamHub(): StubStreamHub {
  const open = new Set<ServerResponse>()
  let closed = false
  const hub: StubStreamHub = {
    attached: [],
    closeGate: createGate(),
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
      await hub.closeGate.pass()
      for (const res of open) res.end()
      open.clear()
    },
  }
  return hub
}
