// A test world whose app streams through the real stream hub (on the world's own store, follower
// and clocks) instead of the recording stub.
import { pino } from 'pino'
import { createStreamHub, type StreamHub } from '../../src/stream/stream-hub.ts'
import { createTestWorld, type TestWorld, type TestWorldOptions } from './test-world.ts'

export async function createTestWorldWithRealHub(
  opts: Omit<TestWorldOptions, 'streams'> = {},
): Promise<TestWorld> {
  // The hub needs the world's own store and follower, which exist only once the world does:
  // hand buildApp a forwarding hub and point it at the real one straight after.
  let inner: StreamHub | undefined
  const forwarding: StreamHub = {
    attach: (res, request, requestId) => inner!.attach(res, request, requestId),
    size: () => inner?.size() ?? 0,
    close: async () => inner?.close(),
  }
  const w = await createTestWorld({ ...opts, streams: forwarding })
  // the app's service clock is its wall clock in a test world
  const clock = opts.wallClock ?? { now: Date.now }
  inner = createStreamHub({
    store: w.store,
    follower: w.follower,
    epoch: await w.store.epoch(),
    retentionMs: 3_600_000,
    wallClock: clock,
    clock,
    heartbeatMs: 15_000,
    logger: pino({ level: 'silent' }),
    storeOutage: w.storeOutage,
  })
  return w
}
