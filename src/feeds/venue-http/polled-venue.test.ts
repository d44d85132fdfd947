// A poll that throws something unexpected (a bug, a body shape no parser caught) throws at every
// poll, every few seconds, for as long as the cause lasts: logged as an outage (decisions §2), not a
// stack per poll. The loop runs on real timers (1 ms apart); the venue's clock is the test's.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createPolledVenue, type PolledVenueSpec } from './polled-venue.ts'

type Line = { level: string; fields: Record<string, unknown>; msg: string }

describe('polled venue › a poll that throws', () => {
  it('is logged once with its stack, then at most once a minute with a count, then once it polls again', async () => {
    let t = 1_000_000
    const lines: Line[] = []
    const at =
      (level: string) =>
      (fields: unknown, msg?: string): void =>
        void lines.push({ level, fields: fields as Record<string, unknown>, msg: msg ?? '' })
    let polls = 0
    let failing: Error | null = new TypeError("Cannot read properties of undefined (reading 'markets')")
    let reached: { n: number; resolve: () => void } | null = null
    const pollsReach = (n: number) =>
      new Promise<void>((resolve) => {
        reached = { n, resolve }
      })
    const venue = createPolledVenue({
      name: 'kalshi',
      clock: { now: () => t },
      logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') },
      pollMs: 1,
      quoteMinIntervalMs: 1_000,
      startFields: {},
      view: {} as PolledVenueSpec['view'],
      follow() {},
      async poll() {
        polls++
        if (reached && polls >= reached.n) reached.resolve()
        if (failing) throw failing
        return true
      },
      fetchQuote: async () => null,
      tradingPaused: () => false,
      scheduledPause: () => false,
    })
    const loud = () => lines.filter((l) => l.level !== 'debug' && l.level !== 'info')
    try {
      const twenty = pollsReach(20)
      await venue.start()
      await twenty
      assert.equal(loud().length, 1, 'twenty failed polls, one line')
      assert.equal(loud()[0]!.level, 'error')
      assert.equal(loud()[0]!.msg, 'kalshi poll failed')
      assert.equal(loud()[0]!.fields.err, failing)

      t += 61_000
      const more = pollsReach(polls + 2)
      await more
      assert.equal(loud().length, 2)
      assert.match(loud()[1]!.msg, /^kalshi poll still failing: \d+ failed attempts since the last line$/)
      assert.equal(loud()[1]!.fields.err, undefined, 'no second stack')

      failing = null
      const clean = pollsReach(polls + 2)
      await clean
      assert.equal(loud().length, 3)
      assert.match(loud()[2]!.msg, /^kalshi poll recovered after \d+ failed attempts over 61 s$/)
      assert.equal(loud()[2]!.level, 'warn')
    } finally {
      await venue.close()
    }
  })
})
