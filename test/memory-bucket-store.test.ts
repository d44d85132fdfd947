// MemoryBucketStore against the bucket store contract (its own units beside the code), on a clock
// the test moves.
import { createMemoryBucketStore } from '../src/store/memory/memory-bucket-store.ts'
import { runBucketStoreContract } from './bucket-store-contract.ts'
import { createManualClock } from './support/manual-clock.ts'

const clock = createManualClock(Date.now())
runBucketStoreContract('MemoryBucketStore', {
  create: async (policy) => createMemoryBucketStore({ ...policy, clock }),
  advance: (ms) => clock.advance(ms),
})
