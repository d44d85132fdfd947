// In-process wake-ups: the embedded default, where engine and api share one process.
import type { EventNotifier } from '../../ports/event-notifier.ts'

export function createMemoryEventNotifier(): EventNotifier {
  const listeners = new Set<(seq: number | null) => void>()
  return {
    async notify(seq) {
      for (const l of listeners) l(seq)
    },
    async subscribe(onWake) {
      listeners.add(onWake)
      return () => listeners.delete(onWake)
    },
    async close() {
      listeners.clear()
    },
  }
}
