// `contest-signals venue check` with VENUE=polymarket against loopback fixtures of Gamma, the CLOB
// and the exchanges: the window the engine would follow, its strike "not yet published", each side's
// lowest ask, the spot per source; or exactly one line naming the cause as the venue gave it. The test
// and the CLI share a wall clock shifted to minute 7 of a window, so no quarter hour passes meanwhile.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import { DOWN_TOKEN, EXAMPLE_UP_BOOK_LEVELS, makeGammaEvent, UP_TOKEN } from './fixtures/polymarket-bodies.ts'
import { type PolymarketFixture, startPolymarketFixture } from './fixtures/polymarket-fixture.ts'
import { exchangeEnv } from './support/feed-env.ts'
import { runCli, tempDir } from './support/service-process.ts'
import { shiftDateNow, shiftedClockEnv } from './support/shifted-clock.ts'

const realNow = Date.now()
const S = Math.floor(realNow / 900_000) * 900
const SHIFT_MS = S * 1000 + 7 * 60_000 - realNow
shiftDateNow(SHIFT_MS)

describe('contest-signals venue check with VENUE=polymarket', () => {
  const tmp = tempDir()
  let pm: PolymarketFixture
  let exchanges: ExchangeFixtures
  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
    VENUE: 'polymarket',
    SERIES: 'btc-updown-15m',
    POLYMARKET_GAMMA_URL: pm.gammaUrl,
    POLYMARKET_CLOB_URL: pm.clobUrl,
    ...exchangeEnv(exchanges),
    ...shiftedClockEnv(SHIFT_MS),
    ...extra,
  })
  const oneLine = (stdout: string, stderr: string): string => {
    assert.equal(stdout, '', 'nothing but the failure line')
    const lines = stderr.trimEnd().split('\n')
    assert.equal(lines.length, 1, stderr)
    return lines[0]!
  }

  before(async () => {
    pm = await startPolymarketFixture()
    exchanges = await startExchangeFixtures()
    exchanges.coinbase.setPrice(84_001.1, 84_001.3)
    exchanges.kraken.setPrice(84_003.0, 84_003.4)
    exchanges.bitstamp.setPrice(84_002.0, 84_002.2)
    pm.putEvent(makeGammaEvent({ startS: S }))
    pm.putEvent(makeGammaEvent({ startS: S + 900 }))
    pm.setBook(UP_TOKEN, EXAMPLE_UP_BOOK_LEVELS.bids, EXAMPLE_UP_BOOK_LEVELS.asks)
    pm.setBook(
      DOWN_TOKEN,
      [{ price: '0.45', size: '10' }],
      [
        { price: '0.46', size: '10' },
        { price: '0.99', size: '1' },
      ],
    )
  })
  after(async () => {
    await pm?.close()
    await exchanges?.close()
    tmp.remove()
  })

  it('prints the window, "strike not yet published", the lowest asks and the spot per source', async () => {
    const { code, stdout, stderr } = await runCli(['venue', 'check'], env())
    assert.equal(code, 0, stderr)
    const window = `${new Date(S * 1000).toISOString()} → ${new Date((S + 900) * 1000).toISOString()}`
    assert.match(stdout, new RegExp(`^venue polymarket at ${pm.gammaUrl}$`, 'm'))
    assert.match(
      stdout,
      new RegExp(
        `btc-updown-15m: btc-updown-15m-${S} trading ${window} strike not yet published asks up 55¢ down 46¢`,
      ),
    )
    assert.match(stdout, /coinbase: 84001\.20 /)
    assert.match(stdout, /^spot sources$/m)
    assert.match(stdout, /^ {2}spot: 84002\.10 \(median of 3 fresh exchanges\)$/m)
  })

  it('names the HTTP status and the venue’s words in one line when Gamma fails', async () => {
    pm.failNext(1_000, 503, { path: /\/gamma\// })
    try {
      const { code, stdout, stderr } = await runCli(['venue', 'check'], env())
      assert.equal(code, 1)
      assert.equal(
        oneLine(stdout, stderr),
        `contest-signals: venue check failed: venue polymarket at ${pm.gammaUrl} unreachable: HTTP 503: cannot get the information`,
      )
    } finally {
      pm.clearFaults()
    }
  })

  it('names the CLOB’s status and words in one line when a book is refused', async () => {
    pm.failNext(1_000, 403, { path: /\/clob\/book/ })
    try {
      const { code, stdout, stderr } = await runCli(['venue', 'check'], env())
      assert.equal(code, 1)
      assert.equal(
        oneLine(stdout, stderr),
        `contest-signals: venue check failed: venue polymarket at ${pm.gammaUrl} order book of btc-updown-15m-${S} unreachable: HTTP 403: cannot get the information`,
      )
    } finally {
      pm.clearFaults()
    }
  })

  it('passes while the CLOB restarts (HTTP 425): no book is expected then, and it says so', async () => {
    pm.failNext(1_000, 425, { path: /\/clob\/book/ })
    try {
      const { code, stdout, stderr } = await runCli(['venue', 'check'], env())
      assert.equal(code, 0, stderr)
      assert.match(
        stdout,
        new RegExp(`btc-updown-15m-${S} trading .* book: no answer \\(trading paused\\)$`, 'm'),
      )
    } finally {
      pm.clearFaults()
    }
  })

  it('refuses a series other than btc-updown-15m in one line', async () => {
    const { code, stdout, stderr } = await runCli(['venue', 'check'], env({ SERIES: 'btc-updown-5m' }))
    assert.equal(code, 1)
    assert.match(
      oneLine(stdout, stderr),
      /venue check failed: SERIES=btc-updown-5m cannot be priced on Polymarket: only btc-updown-15m/,
    )
  })
})
