// The sandbox written as a Polymarket tape and replayed, through the real CLI (decisions §12, §14):
// `sim tape --venue polymarket` writes the Gamma event bodies and per-token CLOB books of a seeded
// day, `replay` runs the engine on them, and every contest settles on the side the sandbox's hidden
// truth (the oracle: the 60 s TWAPs of its Chainlink price at the open and the close) gives, with
// the venue's price to beat as the strike once published and readings at whole minutes.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Contest, MINUTE_MS, round2 } from '../src/domain/contest.ts'
import { createSimOracle } from '../src/feeds/sim/oracle.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import type { TapeRecord } from '../src/tape/tape-format.ts'
import { openTape } from '../src/tape/tape-reader.ts'
import { runCli, tempDir } from './support/service-process.ts'

const SEED = 11
const FROM = '2026-11-20'
const SERIES = 'btc-updown-15m'
const READING_MAX_LATE_MS = 10_000

describe(`sim tape --venue polymarket, replayed through the CLI (seed ${SEED})`, () => {
  const tmp = tempDir('cs-pm-sim-tape-')
  const tape = path.join(tmp.dir, 'day.ndjson.gz')
  const db = path.join(tmp.dir, 'replayed.db')
  let contests: Contest[] = []
  let replayOut = ''
  after(() => tmp.remove())

  before(async () => {
    const wrote = await runCli(
      [
        'sim',
        'tape',
        '--venue',
        'polymarket',
        '--days',
        '1',
        '--seed',
        String(SEED),
        '--from',
        FROM,
        '--out',
        tape,
      ],
      {},
    )
    assert.equal(wrote.code, 0, wrote.stderr)
    assert.match(
      wrote.stdout,
      /^sim tape .*: seed 11, polymarket btc-updown-15m from 2026-11-20T00:00:00.000Z/m,
    )
    const replayed = await runCli(['replay', '--tape', tape], { DATABASE_URL: `sqlite:${db}` })
    assert.equal(replayed.code, 0, replayed.stderr)
    replayOut = replayed.stdout
    const store = createSqliteStore(db)
    try {
      contests = (await store.listSettled({ series: SERIES, limit: 1_000 })).sort(
        (a, b) => a.opensAt - b.opensAt,
      )
    } finally {
      await store.close()
    }
  })

  it('refuses a venue the simulator does not write, with exit code 2', async () => {
    const r = await runCli(
      ['sim', 'tape', '--venue', 'binance', '--days', '1', '--out', path.join(tmp.dir, 'x')],
      {},
    )
    assert.equal(r.code, 2)
    assert.match(r.stderr, /--venue "binance" is not a venue the simulator writes \(kalshi, polymarket\)/)
  })

  it('writes the venue’s own shapes: Gamma events through their lifecycle, per-token books worst-first', async () => {
    const opened = await openTape(tape)
    assert.equal(opened.header.venue, 'polymarket')
    assert.deepEqual(opened.header.series, [SERIES])
    const first = `${SERIES}-${Date.parse(FROM) / 1000}`
    const events: { t: number; m: Record<string, unknown> }[] = []
    let books = 0
    let subCent = false
    for await (const r of opened.records() as AsyncGenerator<TapeRecord>) {
      if (r.k === 'market' && (r.m as { slug: string }).slug === first)
        events.push({ t: r.t, m: r.m as Record<string, unknown> })
      if (r.k === 'book') {
        books++
        assert.ok(r.token, 'a book names its token')
        const ob = r.ob as { asset_id: string; asks: { price: string }[]; bids: { price: string }[] }
        assert.equal(ob.asset_id, r.token)
        const asks = ob.asks.map((l) => Number(l.price))
        const bids = ob.bids.map((l) => Number(l.price))
        // best last: asks descending, bids ascending
        assert.deepEqual(
          asks,
          [...asks].sort((a, b) => b - a),
        )
        assert.deepEqual(
          bids,
          [...bids].sort((a, b) => a - b),
        )
        subCent ||= [...ob.asks, ...ob.bids].some((l) => /^0\.\d{3}$/.test(l.price))
      }
    }
    assert.ok(books > 96 * 2 * 400, `${books} books`)
    assert.ok(subCent, 'a 0.1 ¢ tick near 0 or 1')
    const opensAt = Date.parse(FROM)
    const expiresAt = opensAt + 15 * MINUTE_MS
    const market = (m: Record<string, unknown>) =>
      (m.markets as Record<string, unknown>[])[0] as Record<string, unknown>
    const live = events.filter((e) => e.t < expiresAt)
    assert.ok(live.length > 0 && live.every((e) => e.m.eventMetadata === null), 'no price to beat while live')
    const m0 = market(live[0]!.m)
    assert.equal(typeof m0.outcomes, 'string')
    assert.deepEqual(JSON.parse(m0.outcomes as string), ['Up', 'Down'])
    assert.equal(JSON.parse(m0.clobTokenIds as string).length, 2)
    assert.equal((m0.cryptoMarketConfig as { twapLookbackSeconds: number }).twapLookbackSeconds, 60)
    const resolved = events.find((e) => market(e.m).umaResolutionStatus === 'resolved')
    assert.ok(resolved && resolved.t - expiresAt >= 60_000 && resolved.t - expiresAt <= 120_000)
    const published = events.find((e) => e.m.eventMetadata !== null)
    assert.ok(published && published.t - expiresAt >= 60_000 && published.t - expiresAt <= 300_000)
  })

  it('settles every contest on the side the sandbox’s truth gives, with the venue’s published prices', () => {
    assert.match(replayOut, /^replay btc-updown-15m: 96 contests opened, 96 settled \(0 void\)/m)
    assert.equal(contests.length, 96)
    const oracle = createSimOracle({ seed: SEED })
    let ups = 0
    for (const c of contests) {
      const truth = oracle.polymarket(c.opensAt)
      assert.equal(c.settledSide, truth.side, c.ticker)
      assert.equal(c.strikePriceDollars, round2(truth.priceToBeat), c.ticker)
      if (c.settledPriceDollars !== null)
        assert.equal(c.settledPriceDollars, round2(truth.finalPrice), c.ticker)
      if (truth.side === 'up') ups++
    }
    assert.ok(ups > 20 && ups < 76, `${ups} up of 96`)
  })

  it('raises readings at whole minutes of each window, graded against the venue’s outcome', () => {
    let signals = 0
    for (const c of contests) {
      for (const s of c.signals) {
        signals++
        assert.ok(s.minute >= 1 && s.minute <= 14, `${c.ticker} minute ${s.minute}`)
        const boundary = c.opensAt + s.minute * MINUTE_MS
        assert.ok(
          s.raisedAt >= boundary && s.raisedAt <= boundary + READING_MAX_LATE_MS,
          `${c.ticker} m${s.minute}`,
        )
        assert.equal(s.outcome, s.side === c.settledSide ? 'win' : 'loss')
      }
    }
    assert.ok(signals > 96 * 10, `${signals} readings`)
  })
})
