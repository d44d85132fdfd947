// The venue contract (test/venue-contract.ts) on the venue set, the one every live engine goes
// through (decisions §14): each tape venue's story told through a set that holds both, so every call,
// marketOpenedAt and the pause included, must reach the venue that follows the series and come back whole.

import { createVenueSet } from '../src/feeds/venue-set/venue-set.ts'
import type { Venue } from '../src/ports/venue.ts'
import { kalshiTapeWorld, polymarketTapeWorld } from './support/tape-contract-worlds.ts'
import type { ContractWorld } from './venue-contract.ts'
import { venueContract } from './venue-contract.ts'

/** `world`'s story through a set of its venue and `other`'s, closing both. */
function throughSet(world: ContractWorld, other: ContractWorld): ContractWorld {
  const venue: Venue = createVenueSet([
    { venue: world.venue, series: [world.series] },
    { venue: other.venue, series: [other.series] },
  ])
  return { ...world, venue, close: () => venue.close() }
}

venueContract({
  name: 'the venue set (Kalshi beside Polymarket)',
  can: ['earlier', 'pause', 'timeoutBooks', 'malformedBook', 'malformedMarket'],
  start: async () => throughSet(kalshiTapeWorld(), polymarketTapeWorld()),
})

venueContract({
  name: 'the venue set (Polymarket beside Kalshi)',
  can: ['timeoutBooks', 'malformedBook', 'malformedMarket'],
  start: async () => throughSet(polymarketTapeWorld(), kalshiTapeWorld()),
})
