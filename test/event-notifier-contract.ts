// The EventNotifier port's contract: one suite for the in-process wake-ups and PostgreSQL
// LISTEN/NOTIFY. The factory returns the engine's side and the api's side of one deployment (the
// same object in process).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { EventNotifier } from '../src/ports/event-notifier.ts'
import { waitFor } from './support/wait.ts'

export type EventNotifierFactory = {
  /** The sending and the receiving side of one deployment; the suite closes both. */
  create(): Promise<{ sender: EventNotifier; receiver: EventNotifier }>
}

export function runEventNotifierContract(name: string, factory: EventNotifierFactory): void {
  function test(
    title: string,
    body: (sender: EventNotifier, receiver: EventNotifier) => Promise<void>,
  ): void {
    it(title, async () => {
      const { sender, receiver } = await factory.create()
      try {
        await body(sender, receiver)
      } finally {
        await sender.close()
        if (receiver !== sender) await receiver.close()
      }
    })
  }

  describe(`${name} event notifier contract`, () => {
    test('wakes a subscriber with the seq notified', async (sender, receiver) => {
      const seen: Array<number | null> = []
      await receiver.subscribe((seq) => seen.push(seq))
      await sender.notify(42)
      await waitFor('the wake-up', () => (seen.includes(42) ? true : undefined), 2000, 5)
    })

    test('wakes every subscriber', async (sender, receiver) => {
      const a: Array<number | null> = []
      const b: Array<number | null> = []
      await receiver.subscribe((seq) => a.push(seq))
      await receiver.subscribe((seq) => b.push(seq))
      await sender.notify(7)
      await waitFor('both wake-ups', () => (a.includes(7) && b.includes(7) ? true : undefined), 2000, 5)
    })

    test('stops waking a subscriber once it unsubscribes', async (sender, receiver) => {
      const kept: Array<number | null> = []
      const dropped: Array<number | null> = []
      await receiver.subscribe((seq) => kept.push(seq))
      const unsubscribe = await receiver.subscribe((seq) => dropped.push(seq))
      unsubscribe()
      await sender.notify(9)
      // wake-ups arrive in the order sent: once the kept subscriber has the later one, the earlier
      // one has been handed to every subscriber it was going to reach
      await sender.notify(10)
      await waitFor(
        'the remaining wake-ups',
        () => (kept.includes(9) && kept.includes(10) ? true : undefined),
        2000,
        5,
      )
      assert.ok(!dropped.includes(9) && !dropped.includes(10), `the dropped subscriber saw ${dropped}`)
    })
  })
}
