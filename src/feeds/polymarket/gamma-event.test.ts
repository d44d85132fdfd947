// Tests of the Gamma event mapping (venue facts §3.2, decisions §14): the venue facts' live and resolved
// examples, identity cross-checks naming the field, outcomes and tokens paired by label in either
// order, every lenient form the venue facts list, and the settlement rule read per market.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  DOWN_TOKEN,
  makeGammaEvent,
  resolvedGammaEvent,
  UP_TOKEN,
} from '../../../test/fixtures/polymarket-bodies.ts'
import { type GammaEventParse, type PolymarketMarket, parseGammaEvent, phaseAt } from './gamma-event.ts'
import { settlementOf, toVenueMarket } from './venue-mapping.ts'

const S = 1_790_362_800 // 2026-09-25T19:00:00Z
const SLUG = `btc-updown-15m-${S}`

function market(raw: unknown, slug?: string): PolymarketMarket {
  const r = parseGammaEvent(raw, slug)
  assert.ok(r.ok, `expected a market, got ${JSON.stringify(r)}`)
  return r.market
}
function field(r: GammaEventParse): string {
  assert.ok(!r.ok, 'expected a rejection')
  return r.field
}
/** The event with its one market patched. */
function withMarket(patch: Record<string, unknown>, o = { startS: S }) {
  const e = makeGammaEvent(o)
  const [m] = e.markets as Array<Record<string, unknown>>
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete m![k]
    else m![k] = v
  }
  return e
}

describe('parseGammaEvent', () => {
  it('maps the constructed live example: window, tokens by label, no strike yet', () => {
    const m = market(makeGammaEvent({ startS: S }), SLUG)
    assert.equal(m.slug, SLUG)
    assert.equal(m.opensAt, Date.parse('2026-09-25T19:00:00Z'))
    assert.equal(m.expiresAt, Date.parse('2026-09-25T19:15:00Z'))
    assert.deepEqual(m.tokenIds, { up: UP_TOKEN, down: DOWN_TOKEN })
    assert.deepEqual(m.outcomePrices, { up: 0.545, down: 0.455 })
    assert.equal(m.priceToBeat, null)
    assert.equal(m.finalPrice, null)
    assert.deepEqual(m.rule, { averagingS: 60, tieGoesUp: true, from: 'cryptoMarketConfig' })
    assert.equal(m.resolutionStatus, null)
    const v = toVenueMarket(m, Date.parse('2026-09-25T19:07:00Z'))
    assert.deepEqual(v, {
      ticker: SLUG,
      series: 'btc-updown-15m',
      opensAt: m.opensAt,
      expiresAt: m.expiresAt,
      strikePriceDollars: null,
      phase: 'trading',
      venue: {
        name: 'polymarket',
        refs: {
          slug: SLUG,
          conditionId: '0x3b30b1ce5d5c8b574f8a1c7fecae6a0ae0348f92c1409fba12ba68f46d2c43ff',
          upTokenId: UP_TOKEN,
          downTokenId: DOWN_TOKEN,
        },
      },
      settlementRule: { averagingS: 60 },
    })
  })

  it('pairs outcomes, prices and tokens by label when the venue lists Down first', () => {
    const m = market(
      makeGammaEvent({ startS: S, order: 'down-first', outcomePrices: { up: '0.3', down: '0.7' } }),
    )
    assert.deepEqual(m.tokenIds, { up: UP_TOKEN, down: DOWN_TOKEN })
    assert.deepEqual(m.outcomePrices, { up: 0.3, down: 0.7 })
    // the contest's references name each token by its outcome too, whatever the venue's order
    const { venue } = toVenueMarket(m, m.opensAt)
    assert.ok(venue.name === 'polymarket' && venue.refs)
    assert.equal(venue.refs.upTokenId, UP_TOKEN)
    assert.equal(venue.refs.downTokenId, DOWN_TOKEN)
    const raw = makeGammaEvent({ startS: S, order: 'down-first' })
    assert.match(String((raw.markets as Array<Record<string, unknown>>)[0]!.outcomes), /^\["Down", "Up"\]$/)
    const settled = market(resolvedGammaEvent(S, 'down', null, { order: 'down-first' }))
    assert.deepEqual(settlementOf(settled), { kind: 'settled', side: 'down', priceDollars: null })
  })

  it('accepts the string fields already decoded into arrays, and labels in other cases', () => {
    const m = market(
      withMarket({
        outcomes: ['down', 'UP'],
        outcomePrices: [0.6, '0.4'],
        clobTokenIds: [DOWN_TOKEN, UP_TOKEN],
      }),
    )
    assert.deepEqual(m.tokenIds, { up: UP_TOKEN, down: DOWN_TOKEN })
    assert.deepEqual(m.outcomePrices, { up: 0.4, down: 0.6 })
  })

  it('rejects JSON strings that do not parse, naming the field', () => {
    assert.equal(field(parseGammaEvent(withMarket({ outcomes: '["Up", "Down"' }))), 'outcomes')
    assert.equal(field(parseGammaEvent(withMarket({ outcomes: '["Up", "Yes"]' }))), 'outcomes')
    assert.equal(field(parseGammaEvent(withMarket({ outcomes: '["Up", "Up"]' }))), 'outcomes')
    assert.equal(field(parseGammaEvent(withMarket({ outcomes: undefined }))), 'outcomes')
    assert.equal(
      field(parseGammaEvent(withMarket({ clobTokenIds: '[5783086271497094009, 85466]' }))),
      'clobTokenIds',
    )
    assert.equal(field(parseGammaEvent(withMarket({ clobTokenIds: `["${UP_TOKEN}"]` }))), 'clobTokenIds')
    assert.equal(
      field(parseGammaEvent(withMarket({ clobTokenIds: `["${UP_TOKEN}", "${UP_TOKEN}"]` }))),
      'clobTokenIds',
    )
    assert.equal(field(parseGammaEvent(withMarket({ outcomePrices: 'not json' }))), 'outcomePrices')
    assert.equal(field(parseGammaEvent(withMarket({ outcomePrices: '["1.5", "0"]' }))), 'outcomePrices')
    assert.equal(field(parseGammaEvent(withMarket({ closed: 'false' }))), 'closed')
    assert.equal(field(parseGammaEvent(withMarket({ umaResolutionStatus: 3 }))), 'umaResolutionStatus')
  })

  it('takes a missing outcomePrices as not yet known', () => {
    assert.equal(market(withMarket({ outcomePrices: undefined })).outcomePrices, null)
  })

  it('cross-checks the identity: slug time = eventStartTime, endDate = start + 900 s', () => {
    assert.equal(
      field(parseGammaEvent(withMarket({ eventStartTime: '2026-09-25T19:15:00Z' }))),
      'eventStartTime',
    )
    assert.equal(field(parseGammaEvent(withMarket({ endDate: '2026-09-25T19:30:00Z' }))), 'endDate')
    // startDate is the creation, a day earlier: never taken for the window
    const e = makeGammaEvent({ startS: S })
    delete (e.markets as Array<Record<string, unknown>>)[0]!.eventStartTime
    assert.equal(market(e).opensAt, S * 1000, "the event's startTime when the market has none")
    delete e.startTime
    assert.equal(field(parseGammaEvent(e)), 'eventStartTime')
  })

  it('rejects another family, another slug than asked, and anything but one market', () => {
    const other = makeGammaEvent({ startS: S })
    other.slug = `btc-updown-5m-${S}`
    assert.equal(field(parseGammaEvent(other)), 'slug')
    assert.equal(field(parseGammaEvent(makeGammaEvent({ startS: S }), `btc-updown-15m-${S + 900}`)), 'slug')
    const two = makeGammaEvent({ startS: S })
    two.markets = [...(two.markets as unknown[]), ...(two.markets as unknown[])]
    assert.equal(field(parseGammaEvent(two)), 'markets')
    assert.equal(field(parseGammaEvent({ ...makeGammaEvent({ startS: S }), markets: [] })), 'markets')
    assert.equal(field(parseGammaEvent(withMarket({ slug: `btc-updown-15m-${S + 900}` }))), 'markets[0].slug')
    assert.equal(field(parseGammaEvent([])), 'event')
    assert.equal(field(parseGammaEvent(null)), 'event')
  })

  it('accepts timestamps with fractions, with a space and a short offset', () => {
    const m = market(
      withMarket({ eventStartTime: '2026-09-25 19:00:00+00', endDate: '2026-09-25T19:15:00.000000Z' }),
    )
    assert.equal(m.opensAt, S * 1000)
    assert.equal(m.expiresAt, (S + 900) * 1000)
  })

  it('reads the price to beat and the final price as numbers or strings, and refuses garbage there', () => {
    const num = market(
      resolvedGammaEvent(S, 'up', { priceToBeat: 83962.48113709, finalPrice: 83988.90427316 }),
    )
    assert.equal(num.priceToBeat, 83962.48113709)
    assert.equal(num.finalPrice, 83988.90427316)
    const str = market(makeGammaEvent({ startS: S, eventMetadata: { priceToBeat: '83962.48113709' } }))
    assert.equal(str.priceToBeat, 83962.48113709)
    assert.equal(str.finalPrice, null)
    assert.equal(market(makeGammaEvent({ startS: S, eventMetadata: {} })).priceToBeat, null)
    assert.equal(
      field(parseGammaEvent(makeGammaEvent({ startS: S, eventMetadata: { priceToBeat: 'n/a' } }))),
      'eventMetadata.priceToBeat',
    )
    assert.equal(
      field(parseGammaEvent(makeGammaEvent({ startS: S, eventMetadata: { finalPrice: -1 } }))),
      'eventMetadata.finalPrice',
    )
    const e = makeGammaEvent({ startS: S })
    e.eventMetadata = '{"priceToBeat": 1}'
    assert.equal(field(parseGammaEvent(e)), 'eventMetadata')
  })

  it('reads the settlement rule per market: config, then resolution source, then date', () => {
    const twap30 = { id: 'x', asset: 'btc', duration: '15m', twapEnabled: true, twapLookbackSeconds: 30 }
    assert.equal(market(makeGammaEvent({ startS: S, cryptoMarketConfig: twap30 })).rule.averagingS, 30)
    const pointEra = Date.parse('2026-08-06T12:00:00Z') / 1000
    const old = market(
      makeGammaEvent({
        startS: pointEra,
        cryptoMarketConfig: undefined,
        resolutionSource: 'https://data.chain.link/streams/btc-usd',
      }),
    )
    assert.deepEqual(old.rule, { averagingS: 0, tieGoesUp: true, from: 'resolutionSource' })
    const bare = makeGammaEvent({ startS: pointEra, cryptoMarketConfig: undefined })
    delete bare.resolutionSource
    delete (bare.markets as Array<Record<string, unknown>>)[0]!.resolutionSource
    assert.deepEqual(market(bare).rule, { averagingS: 0, tieGoesUp: true, from: 'date' })
    const bareNew = makeGammaEvent({ startS: S, cryptoMarketConfig: undefined })
    delete bareNew.resolutionSource
    delete (bareNew.markets as Array<Record<string, unknown>>)[0]!.resolutionSource
    assert.equal(market(bareNew).rule.averagingS, 60)
    assert.equal(
      field(
        parseGammaEvent(makeGammaEvent({ startS: S, cryptoMarketConfig: { ...twap30, duration: '5m' } })),
      ),
      'cryptoMarketConfig.duration',
    )
    assert.equal(
      field(parseGammaEvent(makeGammaEvent({ startS: S, cryptoMarketConfig: { ...twap30, asset: 'eth' } }))),
      'cryptoMarketConfig.asset',
    )
    assert.equal(
      field(
        parseGammaEvent(
          makeGammaEvent({ startS: S, cryptoMarketConfig: { ...twap30, twapLookbackSeconds: 0 } }),
        ),
      ),
      'cryptoMarketConfig.twapLookbackSeconds',
    )
    assert.equal(
      field(
        parseGammaEvent(
          makeGammaEvent({ startS: S, resolutionSource: 'https://www.binance.com/en/trade/BTC_USDT' }),
        ),
      ),
      'resolutionSource',
    )
  })
})

describe('phaseAt', () => {
  const m = market(makeGammaEvent({ startS: S }))
  it('is upcoming before the window, trading inside it, closed from its end whatever Gamma still says', () => {
    assert.equal(phaseAt(m, S * 1000 - 1), 'upcoming')
    assert.equal(phaseAt(m, S * 1000), 'trading')
    assert.equal(phaseAt(m, (S + 900) * 1000 - 1), 'trading')
    assert.equal(phaseAt(m, (S + 900) * 1000), 'closed', 'a cached closed:false after the end')
    assert.equal(phaseAt({ ...m, closed: true }, S * 1000 + 1), 'closed')
    assert.equal(phaseAt({ ...m, active: false }, S * 1000 + 1), 'paused')
    assert.equal(phaseAt({ ...m, acceptingOrders: false }, S * 1000 + 1), 'paused')
  })
})
