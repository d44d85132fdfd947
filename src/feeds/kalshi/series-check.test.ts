// Tests of what the engine can price: a bitcoin underlying, 15-minute windows, one up/down market per event.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { whyUnpriceable } from './series-check.ts'

const series = (overrides: Record<string, unknown> = {}) => ({
  series: {
    ticker: 'KXBTC15M',
    title: 'Bitcoin price up down',
    tags: ['BTC', '15 min'],
    frequency: 'fifteen_min',
    ...overrides,
  },
})
const market = (
  ticker: string,
  event: string,
  open: string,
  close: string,
  strikeType = 'greater_or_equal',
) => ({
  ticker,
  event_ticker: event,
  status: 'active',
  open_time: open,
  close_time: close,
  strike_type: strikeType,
  result: '',
  expiration_value: '',
})
const window = [
  market('KXBTC15M-26MAR021630-30', 'KXBTC15M-26MAR021630', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z'),
  market('KXBTC15M-26MAR021645-45', 'KXBTC15M-26MAR021645', '2026-03-02T21:30:00Z', '2026-03-02T21:45:00Z'),
]

describe('whyUnpriceable', () => {
  it('accepts KXBTC15M as the venue describes it', () => {
    assert.equal(whyUnpriceable(series(), window), null)
    assert.equal(whyUnpriceable(series(), []), null, 'metadata alone when no market is in the window')
  })

  it('refuses another underlying, naming what the venue calls it', () => {
    assert.equal(
      whyUnpriceable(series({ title: 'Ethereum price up down', tags: ['ETH', '15 min'] }), window),
      'its underlying is not bitcoin (the venue calls it "Ethereum price up down", tagged ETH, 15 min)',
    )
  })

  it('refuses windows that are not 15 minutes, by the series or by its markets', () => {
    assert.equal(
      whyUnpriceable(series({ frequency: 'hourly' }), window),
      'its windows are not 15 minutes (frequency "hourly")',
    )
    const hour = market('KXBTC15M-X', 'KXBTC15M-E', '2026-03-02T21:00:00Z', '2026-03-02T22:00:00Z')
    assert.equal(whyUnpriceable(series(), [hour]), 'its market KXBTC15M-X runs 60 minutes, not 15')
  })

  it('accepts a series one of whose markets closed early or had its close moved (decisions §8)', () => {
    // the venue closed the just-ended market after 9 minutes; its neighbours run the usual 15
    const closedEarly = market(
      'KXBTC15M-26MAR021630-30',
      'KXBTC15M-26MAR021630',
      '2026-03-02T21:15:00Z',
      '2026-03-02T21:24:00Z',
    )
    const next = market(
      'KXBTC15M-26MAR021700-00',
      'KXBTC15M-26MAR021700',
      '2026-03-02T21:45:00Z',
      '2026-03-02T22:00:00Z',
    )
    assert.equal(whyUnpriceable(series(), [closedEarly, window[1], next]), null)
    const movedLater = market(
      'KXBTC15M-26MAR021645-45',
      'KXBTC15M-26MAR021645',
      '2026-03-02T21:30:00Z',
      '2026-03-02T21:50:00Z',
    )
    assert.equal(whyUnpriceable(series(), [window[0], movedLater]), null)
  })

  it('refuses a ladder: several strikes in one event, or strikes that are not up/down', () => {
    const rung = (n: number) =>
      market(`KXBTCD-26MAR0217-T${n}`, 'KXBTCD-26MAR0217', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z')
    assert.equal(
      whyUnpriceable(series(), [rung(1), rung(2), rung(3)]),
      'its event KXBTCD-26MAR0217 lists 3 markets (a ladder of strikes), not one',
    )
    const between = market('KXBTCD-B', 'KXBTCD-E', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z', 'between')
    assert.equal(
      whyUnpriceable(series(), [between]),
      'its market KXBTCD-B is not an up/down market (strike_type between, not greater_or_equal)',
    )
  })

  it('says so when the venue answers no series object', () => {
    assert.equal(whyUnpriceable({}, []), 'the venue answered no series object')
  })
})
