// MemoryBucketStore against the bucket store contract (its own units beside the code).
import { systemClock } from '../src/main/system-clock.ts'
import { createMemoryBucketStore } from '../src/store/memory/memory-bucket-store.ts'
import { runBucketStoreContract } from './bucket-store-contract.ts'

runBucketStoreContract('MemoryBucketStore', {
  create: async (policy) => createMemoryBucketStore({ ...policy, clock: systemClock }),
})
