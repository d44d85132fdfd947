import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createPostgresEventNotifier } from '../src/store/postgres/postgres-event-notifier.ts'
import { runEventNotifierContract } from './event-notifier-contract.ts'
import { uniqueSchemaUrl, withTestClient } from './support/postgres.ts'
import { waitFor } from './support/wait.ts'

const silent = { warn: () => undefined, info: () => undefined }

// PostgresEventNotifier against the event notifier contract (which sends and receives on separate
// connections), plus what only LISTEN/NOTIFY can show: schemas kept apart, and a killed listening
// connection. How fast a wake-up crosses is a speed, measured by the benchmarks, not asserted here.
runEventNotifierContract('PostgresEventNotifier', {
  async create() {
    const url = uniqueSchemaUrl('notify_contract')
    return {
      sender: createPostgresEventNotifier(url, silent),
      receiver: createPostgresEventNotifier(url, silent),
    }
  },
})

describe('PostgresEventNotifier', () => {
  it('never wakes deployments in other schemas', async () => {
    const urlB = uniqueSchemaUrl('notify_b')
    const a = createPostgresEventNotifier(uniqueSchemaUrl('notify_a'), silent)
    const b = createPostgresEventNotifier(urlB, silent)
    const bSender = createPostgresEventNotifier(urlB, silent)
    try {
      const seen: Array<number | null> = []
      await b.subscribe((seq) => seen.push(seq))
      await a.notify(7)
      // PostgreSQL delivers notifications in commit order: once b has its own schema's later
      // notification, a's earlier one would have reached it too had it shared the channel
      await bSender.notify(8)
      await waitFor('the wake-up from its own schema', () => (seen.includes(8) ? true : undefined), 5000, 5)
      assert.ok(!seen.includes(7), `woken with ${seen}`)
    } finally {
      await a.close()
      await b.close()
      await bSender.close()
    }
  })

  it('reconnects after its listening connection is killed and asks for a catch-up read', async () => {
    const url = uniqueSchemaUrl('notify_kill')
    const sender = createPostgresEventNotifier(url, silent)
    const receiver = createPostgresEventNotifier(url, silent)
    try {
      const seen: Array<number | null> = []
      await receiver.subscribe((seq) => seen.push(seq))
      seen.length = 0
      const killed = await withTestClient((c) =>
        c.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN cs_events_notify_kill%'`,
        ),
      )
      assert.equal(killed.rowCount, 1)
      // After the reconnect a null wake-up asks followers to read whatever they missed…
      await waitFor('the catch-up wake-up', () => (seen.includes(null) ? true : undefined), 5000)
      // …and notifications flow again.
      await waitFor(
        'a notification after the reconnect',
        async () => {
          await sender.notify(99)
          return seen.includes(99) ? true : undefined
        },
        5000,
        100,
      )
    } finally {
      await sender.close()
      await receiver.close()
    }
  })
})
