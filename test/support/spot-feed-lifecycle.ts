// A child process for the open-handles test: start fixture exchanges and a spot feed, read a price,
// close both, and print the price. The process must then exit by itself.
import { createSpotFeed } from '../../src/feeds/spot/spot-feed.ts'
import { startExchangeFixtures } from '../fixtures/exchange-fixtures.ts'
import { createRecordingLogger, FAST_TIMING } from './spot-world.ts'
import { eventually } from './wait.ts'

const ex = await startExchangeFixtures({ heartbeatMs: 100 })
const feed = createSpotFeed({
  sources: ['coinbase', 'kraken', 'bitstamp'],
  urls: ex.urls,
  maxAgeMs: 1_000,
  wallClock: { now: () => Date.now() },
  logger: createRecordingLogger(),
  timing: FAST_TIMING,
})
await feed.start()
// a loaded machine may not have two sources' tickers in by the time start() returns: wait for them
const spot = await eventually(
  () => feed.spotAt(Date.now()),
  (v) => v !== null,
  10_000,
)
await feed.close()
await ex.close()
process.stdout.write(`spot ${spot}\n`)
