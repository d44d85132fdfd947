// A fetch-based Server-Sent Events reader for the contest stream: unlike the browser's EventSource it
// sends the Authorization header, resumes with Last-Event-ID after any disconnect, and treats a 429
// as "wait Retry-After (plus jitter) and try again" instead of closing for good. Each wait is reported
// once, with its reason (rate limited, the service unreachable, an error status, the stream ended),
// so the page can say why the stream is not open.
import { retryAfterMs, sleep, type Wait } from './retry.ts'

export type StreamEvent = { event: string; id: string; data: string }

export type StreamState = 'connecting' | 'open' | 'waiting' | 'unauthorized' | 'closed'

export type StreamOptions = {
  url: string
  key: string
  onEvent: (event: StreamEvent) => void
  /** `wait` comes with 'waiting': why, and for how long */
  onState: (state: StreamState, wait?: Wait) => void
  /** id to resume from on the first connect, if any */
  lastEventId?: string
}

/** Spread reconnects of many clients over a second, so a restart is not met by a thundering herd. */
const JITTER_MS = 1000
const DEFAULT_RETRY_MS = 3000

export function openStream(opts: StreamOptions): { close(): void; lastEventId(): string | undefined } {
  let lastId = opts.lastEventId
  let retryMs = DEFAULT_RETRY_MS
  const stop = new AbortController()
  const jitter = () => Math.floor(Math.random() * JITTER_MS)

  async function connectOnce(): Promise<Wait | 'stop'> {
    const headers: Record<string, string> = {
      Accept: 'text/event-stream',
      Authorization: `Bearer ${opts.key}`,
    }
    if (lastId) headers['Last-Event-ID'] = lastId
    opts.onState('connecting')
    let res: Response
    try {
      res = await fetch(opts.url, { headers, signal: stop.signal, cache: 'no-store' })
    } catch {
      return { reason: 'unreachable', ms: retryMs + jitter() }
    }
    if (res.status === 401) {
      opts.onState('unauthorized')
      return 'stop'
    }
    if (res.status === 429 || res.status === 503) {
      await res.body?.cancel().catch(() => undefined)
      return {
        reason: res.status === 429 ? 'rate-limited' : 'unavailable',
        status: res.status,
        ms: retryAfterMs(res) + jitter(),
      }
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => undefined)
      return { reason: 'unavailable', status: res.status, ms: retryMs + jitter() }
    }
    opts.onState('open')
    await readFrames(res.body, (frame) => {
      if (frame.retry !== undefined) retryMs = frame.retry
      if (frame.id !== undefined) lastId = frame.id
      if (frame.data !== undefined)
        opts.onEvent({ event: frame.event ?? 'message', id: lastId ?? '', data: frame.data })
    })
    return { reason: 'ended', ms: retryMs + jitter() }
  }

  void (async () => {
    while (!stop.signal.aborted) {
      const wait = await connectOnce()
      if (wait === 'stop' || stop.signal.aborted) break
      // said once per wait: the reason it waits is what the page shows until the next try
      opts.onState('waiting', wait)
      await sleep(wait.ms, stop.signal).catch(() => undefined)
    }
    opts.onState('closed')
  })()

  return {
    close() {
      stop.abort()
    },
    lastEventId: () => lastId,
  }
}

type Frame = { event?: string; id?: string; data?: string; retry?: number }

/** The SSE wire format (WHATWG HTML §9.2): fields until a blank line; comments start with a colon. */
async function readFrames(body: ReadableStream<Uint8Array>, onFrame: (frame: Frame) => void): Promise<void> {
  const decoder = new TextDecoder()
  let buffer = ''
  let frame: Frame = {}
  const reader = body.getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      const lines = buffer.split(/\r\n|\r|\n/)
      buffer = lines.pop() ?? ''
      for (const line of lines) {
        if (line === '') {
          if (frame.data !== undefined || frame.retry !== undefined) onFrame(frame)
          frame = {}
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') frame.event = value
        else if (field === 'id') frame.id = value
        else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`
        else if (field === 'retry' && /^\d+$/.test(value)) frame.retry = Number(value)
      }
    }
  } catch {
    // aborted or the connection dropped: the caller reconnects
  }
}
