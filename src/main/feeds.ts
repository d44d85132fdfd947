// Chooses the venue and price feed named by VENUE.
import type { Config } from '../config/config.ts'
import { createSimPriceFeed } from '../feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../feeds/sim/sim-venue.ts'
import type { PriceFeed, Venue } from '../ports/venue.ts'

export function createFeeds(config: Pick<Config, 'venue' | 'simSeed' | 'series'>): {
  venue: Venue
  feed: PriceFeed
} {
  const feed = createSimPriceFeed({ seed: config.simSeed })
  const venue = createSimVenue({ seed: config.simSeed, feed, series: config.series })
  return { venue, feed }
}
