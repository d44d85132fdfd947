// The feeds' ages in metrics (engine roles): how long ago each venue last answered a whole poll, on
// the wall clock (its requests are real ones), and each spot source last gave a price, on the clock
// the spot's freshness (SPOT_MAX_AGE_S) is judged on: the service clock, which is the wall clock with
// real venues and the virtual clock under the simulator (whose feed reports its sources at that clock's
// now, given to createFeeds as `clock`).
import type { Metrics } from '../metrics/metrics.ts'
import type { Clock } from '../ports/clock.ts'
import type { Feeds } from './feeds.ts'

export function watchFeedAges(
  metrics: Metrics,
  feeds: Pick<Feeds, 'venue' | 'feed'>,
  clocks: { wallClock: Clock; clock: Clock },
): void {
  metrics.watchFeeds(
    () => feeds.venue.statuses(),
    () => feeds.feed.sources(),
    () => clocks.wallClock.now(),
    () => clocks.clock.now(),
  )
}
