// A test stream client: fetch + eventsource-parser, keeping every frame it sees (events, retry,
// comments) so tests can assert on the exact sequence.
import { createParser, type EventSourceMessage } from 'eventsource-parser'

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
