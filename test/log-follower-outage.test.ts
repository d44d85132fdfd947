// A store outage seen by the api's event-log follower (it polls four times a second): the log says
// when the outage started (with the error), then at most once a minute how many polls failed, and
// once when it is over — not one error line with a stack per poll. Time is the test's (a manual clock).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { StoredEvent } from '../src/domain/events.ts'
import type { Store } from '../src/ports/store.ts'
import { createMemoryEventNotifier } from '../src/store/memory/memory-event-notifier.ts'
import { createLogFollower } from '../src/stream/log-follower.ts'
import { createManualClock } from './support/manual-clock.ts'

type Line = { level: 'error' | 'warn'; fields: Record<string, unknown>; message: string }

function world() {
  const clock = createManualClock()
  let down: Error | null = null
  const events: StoredEvent[] = []
  const store = {
    latestSeq: async () => 0,
    eventsAfter: async (after: number) => {
      if (down) throw down
      return events.filter((e) => e.seq > after)
    },
  } as unknown as Store
  const lines: Line[] = []
  const logger = {
    error: (fields: unknown, message?: string) =>
      void lines.push({ level: 'error', fields: fields as Record<string, unknown>, message: message ?? '' }),
    warn: (fields: unknown, message?: string) =>
      void lines.push({ level: 'warn', fields: fields as Record<string, unknown>, message: message ?? '' }),
  }
  // the interval never fires within a test: each poll is a wake() the test makes
  const follower = createLogFollower({
    store,
    notifier: createMemoryEventNotifier(),
    pollMs: 3_600_000,
    logger,
    wallClock: clock,
  })
  const received: StoredEvent[] = []
  follower.onEvents((batch) => void received.push(...batch))
  return {
    clock,
    lines,
    follower,
    received,
    events,
    fail(err: Error | null) {
      down = err
    },
    /** one poll, `ms` after the previous one, awaited */
    async poll(ms = 250) {
      clock.advance(ms)
      follower.wake()
      await follower.exclusive(async () => undefined)
    },
  }
}

const refused = () =>
  new Error('PostgreSQL is unavailable (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:5432')

describe('the event-log follower during a store outage', () => {
  it('logs the start with the error, then at most once a minute with a count, then the recovery once', async () => {
    const w = world()
    await w.follower.start()
    await w.poll()
    assert.equal(w.lines.length, 0)

    const err = refused()
    w.fail(err)
    await w.poll()
    assert.equal(w.lines.length, 1, 'the first failure is logged at once')
    assert.equal(w.lines[0]!.level, 'error')
    assert.equal(w.lines[0]!.fields.err, err, 'with the error itself')
    assert.match(w.lines[0]!.message, /reading the event log failed/)

    // the rest of the first minute: 239 more failed polls, no more lines
    for (let i = 0; i < 239; i++) await w.poll()
    assert.equal(w.lines.length, 1, 'no line per failed poll')

    // a minute after the first line: one line with how many polls failed since
    await w.poll()
    assert.equal(w.lines.length, 2)
    assert.equal(w.lines[1]!.level, 'error')
    assert.equal(w.lines[1]!.fields.failures, 240)
    assert.equal(w.lines[1]!.fields.err, undefined, 'no second stack')
    assert.match(String(w.lines[1]!.fields.error), /ECONNREFUSED/)
    assert.match(w.lines[1]!.message, /still fail/)

    // a slower second minute (polls 10 s apart): still at most one line a minute
    for (let i = 0; i < 5; i++) await w.poll(10_000)
    assert.equal(w.lines.length, 2)
    await w.poll(10_000)
    assert.equal(w.lines.length, 3)
    assert.equal(w.lines[2]!.fields.failures, 6)

    // recovered: one line, with the whole outage's count and length; the missed events arrive
    w.fail(null)
    w.events.push({ type: 'signal.emitted', series: 'S', ticker: 'T', data: '{}', seq: 1, appendedAt: 0 })
    await w.poll()
    assert.equal(w.lines.length, 4)
    assert.equal(w.lines[3]!.level, 'warn')
    assert.match(w.lines[3]!.message, /recovered/)
    assert.equal(w.lines[3]!.fields.failures, 1 + 239 + 1 + 6)
    assert.equal(w.lines[3]!.fields.downSeconds, 60 + 60 + 0.25)
    assert.deepEqual(
      w.received.map((e) => e.seq),
      [1],
    )
    for (let i = 0; i < 10; i++) await w.poll()
    assert.equal(w.lines.length, 4, 'nothing more while it works')

    // a new outage is a new start, logged at once with its error
    w.fail(refused())
    await w.poll()
    assert.equal(w.lines.length, 5)
    assert.match(w.lines[4]!.message, /reading the event log failed/)
    assert.ok(w.lines[4]!.fields.err instanceof Error)
    await w.follower.stop()
  })

  it('a single failed poll is a start and a recovery, nothing in between', async () => {
    const w = world()
    await w.follower.start()
    w.fail(refused())
    await w.poll()
    w.fail(null)
    await w.poll()
    assert.deepEqual(
      w.lines.map((l) => [l.level, l.fields.failures]),
      [
        ['error', undefined],
        ['warn', 1],
      ],
    )
    await w.follower.stop()
  })
})
