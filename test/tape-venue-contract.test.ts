// The venue contract (test/venue-contract.ts) on the replay's one tape venue, on Kalshi's and on
// Polymarket's market book (through the registry), each played from a tape written for the
// contract's story (test/support/tape-contract-worlds.ts).
import { kalshiTapeWorld, polymarketTapeWorld } from './support/tape-contract-worlds.ts'
import { venueContract } from './venue-contract.ts'

venueContract({
  name: 'the Kalshi tape venue',
  can: ['earlier', 'pause', 'timeoutBooks', 'malformedBook', 'malformedMarket'],
  start: async () => kalshiTapeWorld(),
})

venueContract({
  name: 'the Polymarket tape venue',
  can: ['timeoutBooks', 'malformedBook', 'malformedMarket'],
  start: async () => polymarketTapeWorld(),
})
