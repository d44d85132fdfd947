// The subscriber index: events find exactly the live streams of their series or ticker.
import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { test } from 'node:test'
import { createSubscriberIndex, newSubscriber, type Subscriber } from './subscriber-index.ts'

/** The streams an event reaches, in the order the hub walks them. */
function matched(
  index: ReturnType<typeof createSubscriberIndex>,
  series: string,
  ticker: string,
): Subscriber[] {
  return index.matching(series, ticker).flatMap((set) => [...set])
}

const sub = (): Subscriber => newSubscriber({} as ServerResponse, null)

test('subscriber index › a stream being opened is counted but matches no event', () => {
  const index = createSubscriberIndex()
  const s = sub()
  index.add(s)
  assert.equal(index.size(), 1)
  assert.deepEqual([...index.all()], [s])
  assert.deepEqual(matched(index, 'KXBTC15M', 'KXBTC15M-1'), [])
})

test('subscriber index › events match streams of their series and of their ticker', () => {
  const index = createSubscriberIndex()
  const bySeries = sub()
  const byTicker = sub()
  const otherSeries = sub()
  const otherTicker = sub()
  for (const s of [bySeries, byTicker, otherSeries, otherTicker]) index.add(s)
  index.goLive(bySeries, { series: 'A' })
  index.goLive(byTicker, { ticker: 'A-1' })
  index.goLive(otherSeries, { series: 'B' })
  index.goLive(otherTicker, { ticker: 'A-2' })
  assert.deepEqual(matched(index, 'A', 'A-1'), [bySeries, byTicker])
  assert.deepEqual(matched(index, 'A', 'A-3'), [bySeries])
  assert.deepEqual(matched(index, 'B', ''), [otherSeries])
  assert.deepEqual(matched(index, 'C', 'C-1'), [])
})

test('subscriber index › a ticker-less event never matches a stream scoped to an empty ticker', () => {
  const index = createSubscriberIndex()
  const s = sub()
  index.add(s)
  index.goLive(s, { ticker: '' })
  assert.deepEqual(matched(index, '', ''), [])
})

test('subscriber index › a removed stream matches nothing and cannot come back live', () => {
  const index = createSubscriberIndex()
  const live = sub()
  const opening = sub()
  index.add(live)
  index.add(opening)
  index.goLive(live, { series: 'A' })
  index.remove(live)
  index.remove(opening)
  index.goLive(opening, { series: 'A' })
  assert.equal(index.size(), 0)
  assert.deepEqual(matched(index, 'A', 'A-1'), [])
})
