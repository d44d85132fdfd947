// MemoryEventNotifier against the event notifier contract: engine and api share the one instance.
import { createMemoryEventNotifier } from '../src/store/memory/memory-event-notifier.ts'
import { runEventNotifierContract } from './event-notifier-contract.ts'

runEventNotifierContract('MemoryEventNotifier', {
  async create() {
    const notifier = createMemoryEventNotifier()
    return { sender: notifier, receiver: notifier }
  },
})
