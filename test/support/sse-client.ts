// Test stream clients: fetch + eventsource-parser, keeping every frame they see (events, retry,
// comments) so tests can assert on the exact sequence; and a client that stops reading.
import assert from 'node:assert/strict'
import { get, type IncomingMessage } from 'node:http'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { waitUntil, within } from './wait.ts'

export type SseClient = {
  status: number
  headers: Headers
  events: EventSourceMessage[]
  comments: string[]
  retries: number[]
  /** resolves when the server ends the stream */
  ended: Promise<void>
  close(): void
}

export async function openStream(
  url: string,
  opts: { key?: string; lastEventId?: string; headers?: Record<string, string> } = {},
): Promise<SseClient> {
  const controller = new AbortController()
  const headers: Record<string, string> = { Accept: 'text/event-stream', ...opts.headers }
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`
  if (opts.lastEventId) headers['Last-Event-ID'] = opts.lastEventId
  const res = await fetch(url, { headers, signal: controller.signal })
  const client: SseClient = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: [],
    retries: [],
    ended: Promise.resolve(),
    close: () => controller.abort(),
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel()
    return client
  }
  const parser = createParser({
    onEvent: (e) => client.events.push(e),
    onComment: (c) => client.comments.push(c),
    onRetry: (r) => client.retries.push(r),
  })
  const body = res.body
  client.ended = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }))
    } catch {
      // aborted by close(), or the connection dropped
    }
  })()
  return client
}

export type Received = { event: string; id: string; data: string }
export type Frame =
  | { kind: 'retry'; ms: number }
  | { kind: 'comment'; text: string }
  | ({ kind: 'event' } & Received)

export type Client = {
  frames: Frame[]
  events: Received[]
  commentTimes: number[]
  /** 'clean' when the server ended the body, 'error' when the connection broke, null while open */
  end: 'clean' | 'error' | null
  ended: Promise<void>
  close(): void
}

export function trackFrames(): Pick<Client, 'frames' | 'events' | 'commentTimes'> & {
  feed(text: string): void
} {
  const frames: Frame[] = []
  const events: Received[] = []
  const commentTimes: number[] = []
  const parser = createParser({
    onRetry: (ms) => frames.push({ kind: 'retry', ms }),
    onComment: (text) => {
      frames.push({ kind: 'comment', text })
      commentTimes.push(performance.now())
    },
    onEvent: (e) => {
      const received = { event: e.event ?? 'message', id: e.id ?? '', data: e.data }
      frames.push({ kind: 'event', ...received })
      events.push(received)
    },
  })
  return { frames, events, commentTimes, feed: (text) => parser.feed(text) }
}

/** A reading client: fetch + eventsource-parser, keeping every frame in arrival order. */
export async function openClient(url: string, lastEventId?: string): Promise<Client> {
  const controller = new AbortController()
  const headers: Record<string, string> = { accept: 'text/event-stream' }
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
  // Only the wait for the response head is bounded; the stream itself stays open until closed.
  const headTimer = setTimeout(() => controller.abort(new Error('no response head within 5 s')), 5000)
  const res = await fetch(url, { headers, signal: controller.signal }).finally(() => clearTimeout(headTimer))
  assert.equal(res.status, 200)
  const tracked = trackFrames()
  const client: Client = {
    frames: tracked.frames,
    events: tracked.events,
    commentTimes: tracked.commentTimes,
    end: null,
    ended: Promise.resolve(),
    close: () => controller.abort(),
  }
  const body = res.body!
  client.ended = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of body) tracked.feed(decoder.decode(chunk, { stream: true }))
      client.end = 'clean'
    } catch {
      client.end = 'error'
    }
  })()
  return client
}

/**
 * A client that reads nothing: node:http stops reading the socket once its small buffer is full.
 * `readToEnd` then takes whatever the kernel still holds, until the connection closes.
 */
export async function openStalledClient(
  url: string,
  lastEventId?: string,
): Promise<{ readToEnd(): Promise<Pick<Client, 'frames' | 'events'>> }> {
  const headers: Record<string, string> = lastEventId === undefined ? {} : { 'last-event-id': lastEventId }
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    get(url, { agent: false, headers }, resolve).on('error', reject)
  })
  res.on('error', () => {}) // the cut-off surfaces as an aborted response
  const closed = new Promise((resolve) => res.once('close', resolve))
  return {
    async readToEnd() {
      const tracked = trackFrames()
      res.setEncoding('utf8')
      res.on('data', (text: string) => tracked.feed(text))
      await within(closed, 'the stalled connection to close')
      return tracked
    },
  }
}

/** Waits until the client has the event with this id (the "fence"), then returns everything it got. */
export async function eventsUpTo(client: Client, fenceId: string, timeoutMs = 5000): Promise<Received[]> {
  await waitUntil(() => client.events.some((e) => e.id === fenceId), `event ${fenceId}`, timeoutMs)
  return client.events
}
