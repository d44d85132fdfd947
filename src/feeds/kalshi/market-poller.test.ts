// A listing the venue cuts short (a cursor handed back again, or too many pages: a venue bug) is cut
// short at every poll, every few seconds, while the bug lasts: logged as an outage per series
// (decisions §2), not a warning per poll. On a scripted client and a manual clock.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { KalshiClient, KalshiReply } from './kalshi-client.ts'
import { createMarketBook } from './market-book.ts'
import { createMarketPoller } from './market-poller.ts'

describe('market poller › a listing cut short', () => {
  it('is logged once, then at most once a minute with a count, then once it ends cleanly again', async () => {
    let t = Date.parse('2026-03-02T21:20:00Z')
    let looping = true
    const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = []
    const at =
      (level: string) =>
      (fields: unknown, msg?: string): void =>
        void lines.push({ level, fields: fields as Record<string, unknown>, msg: msg ?? '' })
    const logger = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') }
    const client: KalshiClient = {
      async get(_endpoint, _path, query = {}): Promise<KalshiReply> {
        // page 1 hands out c1, page 2 hands c1 back while the bug lasts
        const cursor = query.cursor === undefined ? 'c1' : looping ? 'c1' : ''
        return { ok: true, body: { cursor, markets: [{ ticker: `X-${query.cursor ?? 'first'}` }] } }
      },
    }
    const poller = createMarketPoller({
      client,
      book: createMarketBook({ series: ['KXBTC15M'], logger }),
      series: ['KXBTC15M'],
      logger,
      clock: { now: () => t },
      notFoundGiveUpMs: 60_000,
    })
    const cut = () =>
      lines.filter((l) =>
        /^kalshi listing (of KXBTC15M )?(\(cut short\) )?(cut short|still|recovered)/.test(l.msg),
      )
    const signal = new AbortController().signal
    for (let i = 0; i < 10; i++) {
      await poller.pollOnce(signal)
      t += 5_000
    }
    assert.equal(cut().length, 1, 'ten polls cut short, one line')
    assert.equal(cut()[0]!.level, 'warn')
    assert.equal(cut()[0]!.msg, 'kalshi listing cut short; stopping there')
    assert.equal(cut()[0]!.fields.series, 'KXBTC15M')
    assert.equal(cut()[0]!.fields.cursor, 'c1')
    assert.equal(cut()[0]!.fields.reason, 'the venue handed back a cursor it gave before')

    t += 15_000
    await poller.pollOnce(signal)
    assert.equal(cut().length, 2)
    assert.match(cut()[1]!.msg, /still failing: 10 failed attempts since the last line$/)

    looping = false
    await poller.pollOnce(signal)
    assert.equal(cut().length, 3)
    assert.match(cut()[2]!.msg, /recovered after 11 failed attempts over 65 s$/)
  })
})
