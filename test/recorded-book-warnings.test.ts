// A replay of a tape whose recorded order books the adapter rejects (the venue changed the book's
// shape): every reading of every contest asks for a book, so a line per rejected book was ~80 lines a
// contest (1,851 for a quarter day of tape). One line per field says it; the replay still skips them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { recordedKalshi } from '../src/feeds/kalshi/recorded-venue.ts'
import { recordedPolymarket } from '../src/feeds/polymarket/recorded-venue.ts'
import type { Logger } from '../src/ports/logger.ts'
import { NO_ANSWER } from '../src/ports/venue.ts'

function recordingLogger() {
  const warned: Array<Record<string, unknown> & { msg: string }> = []
  const logger: Logger = {
    info() {},
    error() {},
    debug() {},
    warn: (fields: unknown, msg?: string) => void warned.push({ ...(fields as object), msg: msg ?? '' }),
  }
  return { logger, warned }
}

describe('recorded venues › rejected order books', () => {
  it('Kalshi: the first rejected book of each field is logged, naming its ticker; the rest only skipped', () => {
    const { logger, warned } = recordingLogger()
    const venue = recordedKalshi(['KXBTC15M'], logger)
    for (const ticker of ['KXBTC15M-26NOV300030-30', 'KXBTC15M-26NOV300045-45'])
      for (let i = 0; i < 40; i++) assert.equal(venue.quoteOf(ticker, [{ orderbook_zz: {} }]), NO_ANSWER)
    assert.equal(
      venue.quoteOf('KXBTC15M-26NOV300045-45', [{ orderbook_fp: { yes_dollars: 'x' } }]),
      NO_ANSWER,
    )
    assert.deepEqual(
      warned.map((w) => [w.msg, w.ticker, w.field]),
      [
        [
          'kalshi order book malformed; skipped (and every later book malformed at this field, without a line)',
          'KXBTC15M-26NOV300030-30',
          'orderbook_fp',
        ],
        [
          'kalshi order book malformed; skipped (and every later book malformed at this field, without a line)',
          'KXBTC15M-26NOV300045-45',
          'orderbook_fp.yes_dollars',
        ],
      ],
    )
  })

  it('Polymarket: the same, per field', () => {
    const { logger, warned } = recordingLogger()
    const venue = recordedPolymarket(['btc-updown-15m'], logger)
    for (let i = 0; i < 40; i++)
      assert.equal(venue.quoteOf('btc-updown-15m-1796000000', ['not a book', 'not a book']), NO_ANSWER)
    assert.equal(warned.length, 1)
    assert.match(
      warned[0]!.msg,
      /^polymarket order book malformed; skipped \(and every later book malformed at this field, without a line\)$/,
    )
  })
})
