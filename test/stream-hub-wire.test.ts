// The stream hub's bytes on the wire: frames go straight to the socket in the response's own framing
// (chunks for HTTP/1.1, bare for HTTP/1.0), so what a client reads is exactly what res.write gave.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import type { StoredEvent } from '../src/domain/events.ts'
import { makeNextContest, newSeries } from './support/contest-fixtures.ts'
import { createStreamWorld, type StreamWorld } from './support/stream-world.ts'
import { waitUntil } from './support/wait.ts'

/** A raw connection to the world's stream of `series`: the head and body as read so far. */
function rawStream(t: { after(fn: () => void): void }, w: StreamWorld, series: string, version: string) {
  const url = new URL(w.url(series))
  const socket = connect(Number(url.port), url.hostname)
  t.after(() => socket.destroy())
  const read = { text: '' }
  socket.on('data', (chunk: Buffer) => {
    read.text += chunk.toString('latin1')
  })
  socket.write(`GET ${url.pathname}${url.search} HTTP/${version}\r\nhost: ${url.host}\r\n\r\n`)
  return {
    head: () => read.text.slice(0, read.text.indexOf('\r\n\r\n')),
    body: () => read.text.slice(read.text.indexOf('\r\n\r\n') + 4),
  }
}

function frameText(w: StreamWorld, event: StoredEvent): string {
  const r = w.expect(event)
  return `event: ${r.event}\nid: ${r.id}\ndata: ${r.data}\n\n`
}

const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`

test('stream hub › an HTTP/1.0 client (no chunked encoding) gets the frames unframed', async (t) => {
  const w = await createStreamWorld(t)
  const series = newSeries()
  const stream = rawStream(t, w, series, '1.0')
  await waitUntil(() => w.hub.size() === 1 && stream.body() !== '', 'the head and retry')
  const contest = makeNextContest(series)
  const opened = await w.open(contest)
  const signal = await w.signal(contest, 1)
  await waitUntil(() => stream.body().endsWith(frameText(w, signal)), 'both events')
  assert.doesNotMatch(stream.head(), /transfer-encoding/i)
  assert.equal(stream.body(), `retry: 3000\n\n${frameText(w, opened)}${frameText(w, signal)}`)
})

test('stream hub › an HTTP/1.1 client gets each frame as one chunk, keep-alives included', async (t) => {
  const w = await createStreamWorld(t, { heartbeatMs: 30 })
  const series = newSeries()
  const stream = rawStream(t, w, series, '1.1')
  await waitUntil(() => w.hub.size() === 1 && stream.body() !== '', 'the head and retry')
  const contest = makeNextContest(series)
  const opened = await w.open(contest)
  await waitUntil(() => stream.body().includes(frameText(w, opened)), 'the event')
  await waitUntil(() => stream.body().endsWith(chunk(': keep-alive\n\n')), 'a keep-alive after it')
  assert.match(stream.head(), /transfer-encoding: chunked/i)
  // Only whole chunks: retry, any keep-alives, the event, keep-alives.
  const keepAlive = chunk(': keep-alive\n\n')
  const rest = stream.body().replaceAll(keepAlive, '')
  assert.equal(rest, chunk('retry: 3000\n\n') + chunk(frameText(w, opened)))
})
