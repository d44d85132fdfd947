// PostgreSQL unreachable, seen by the api's LISTEN connection: it reconnects with backoff (every 2 s
// at most) for as long as the outage lasts, and its log says so once when the connection is lost,
// then at most once a minute with how many reconnects failed, and once when it is back — not a warn
// line per attempt. Between the notifier and PostgreSQL sits a port the test opens and closes; the
// minute is the test's (a manual clock).
import assert from 'node:assert/strict'
import { createServer, type Socket, connect as tcpConnect } from 'node:net'
import { after, describe, it } from 'node:test'
import { createPostgresEventNotifier } from '../src/store/postgres/postgres-event-notifier.ts'
import { createManualClock } from './support/manual-clock.ts'
import { POSTGRES_TEST_URL, uniqueSchemaUrl } from './support/postgres.ts'
import { waitFor } from './support/wait.ts'

type Line = { level: string; fields: Record<string, unknown>; message: string }

/** A port that forwards to PostgreSQL, or drops every connection (counting them) while `down`. */
async function gate() {
  const target = new URL(POSTGRES_TEST_URL)
  const open = new Set<Socket>()
  let down = false
  let refused = 0
  const server = createServer((client) => {
    if (down) {
      refused++
      client.destroy()
      return
    }
    const upstream = tcpConnect(Number(target.port || 5432), target.hostname)
    for (const s of [client, upstream]) {
      open.add(s)
      s.on('error', () => undefined)
      s.on('close', () => {
        open.delete(s)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    port,
    get refused() {
      return refused
    },
    down() {
      down = true
      for (const s of open) s.destroy()
    },
    up() {
      down = false
    },
    close: () => {
      for (const s of open) s.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

describe('PostgresEventNotifier during an outage', () => {
  const closers: Array<() => Promise<void>> = []
  after(async () => {
    for (const close of closers.reverse()) await close()
  })
  /** A notifier whose PostgreSQL is behind a gate the test opens and shuts, logging into `lines`. */
  async function notifierBehindGate(schema: string) {
    const g = await gate()
    closers.push(g.close)
    const url = new URL(uniqueSchemaUrl(schema))
    url.host = `127.0.0.1:${g.port}`
    const lines: Line[] = []
    const log =
      (level: string) =>
      (fields: unknown, message = '') =>
        void lines.push({ level, fields: fields as Record<string, unknown>, message })
    const clock = createManualClock()
    const notifier = createPostgresEventNotifier(
      url.toString(),
      { warn: log('warn'), info: log('info') },
      clock,
    )
    closers.push(() => notifier.close())
    return { g, lines, clock, notifier }
  }

  it('logs the lost connection once, then at most once a minute with a count, then its return once', async () => {
    const { g, lines, clock, notifier } = await notifierBehindGate('notify_outage')
    const wakes: Array<number | null> = []
    await notifier.subscribe((seq) => wakes.push(seq))
    assert.equal(lines.length, 0)

    g.down()
    await waitFor('the lost connection to be logged', () => (lines.length > 0 ? true : undefined))
    assert.equal(lines[0]!.level, 'warn')
    assert.equal(lines[0]!.message, 'event notification connection lost; reconnecting')
    assert.ok(lines[0]!.fields.err !== undefined, 'with the error')

    // reconnects fail (100, 200, 400 ms apart…): none of them is a line of its own
    await waitFor('three failed reconnects', () => (g.refused >= 3 ? true : undefined), 10_000)
    assert.equal(lines.length, 1, lines.map((l) => l.message).join('\n'))

    // a minute later, the next failure says how many there were
    clock.advance(60_000)
    const before = g.refused
    await waitFor('a line a minute', () => (lines.length > 1 ? true : undefined), 10_000)
    assert.equal(lines[1]!.level, 'warn')
    assert.match(lines[1]!.message, /still failing/)
    assert.ok((lines[1]!.fields.failures as number) >= before, `failures ${lines[1]!.fields.failures}`)
    assert.equal(lines[1]!.fields.err, undefined, 'no second stack')

    g.up()
    clock.advance(5_000)
    await waitFor('the return to be logged', () => (lines.length > 2 ? true : undefined), 10_000)
    assert.equal(lines[2]!.level, 'info')
    assert.match(lines[2]!.message, /recovered/)
    assert.ok((lines[2]!.fields.failures as number) > (lines[1]!.fields.failures as number))
    assert.equal(lines[2]!.fields.downSeconds, 65)
    // followers are asked to read what they missed
    await waitFor('the catch-up wake-up', () => (wakes.includes(null) ? true : undefined))
    assert.equal(lines.length, 3)
  })

  it('logs notifications that fail while PostgreSQL is down once, then once a minute, then their return', async () => {
    // no subscriber: only the engine's notifications go to PostgreSQL
    const { g, lines, clock, notifier } = await notifierBehindGate('notify_each')
    await notifier.notify(1)
    assert.equal(lines.length, 0)

    g.down()
    // one notification per event the engine commits: ten events, one line
    for (let seq = 2; seq <= 11; seq++) await notifier.notify(seq)
    assert.equal(lines.length, 1, lines.map((l) => l.message).join('\n'))
    assert.equal(lines[0]!.level, 'warn')
    assert.equal(lines[0]!.message, 'event notification failed; followers read the events on their next poll')

    clock.advance(61_000)
    await notifier.notify(12)
    assert.equal(lines.length, 2)
    assert.equal(
      lines[1]!.message,
      'event notification still failing: 10 failed attempts since the last line',
    )

    g.up()
    await notifier.notify(13)
    assert.equal(lines.length, 3)
    assert.match(lines[2]!.message, /^event notification recovered after 11 failed attempts over 61 s$/)
  })
})
