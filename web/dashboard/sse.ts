// A fetch-based Server-Sent Events reader for the contest stream: unlike the browser's EventSource it
// sends the Authorization header, resumes with Last-Event-ID after any disconnect, and treats a 429
// as "wait Retry-After (plus jitter) and try again" instead of closing for good.

export type StreamEvent = { event: string; id: string; data: string }

export type StreamState = 'connecting' | 'open' | 'waiting' | 'unauthorized' | 'closed'

export type StreamOptions = {
  url: string
  key: string
  onEvent: (event: StreamEvent) => void
  onState: (state: StreamState, detail?: string) => void
  /** id to resume from on the first connect, if any */
  lastEventId?: string
}

/** Spread reconnects of many clients over a second, so a restart is not met by a thundering herd. */
const JITTER_MS = 1000
const DEFAULT_RETRY_MS = 3000

export function openStream(opts: StreamOptions): { close(): void; lastEventId(): string | undefined } {
  let lastId = opts.lastEventId
  let retryMs = DEFAULT_RETRY_MS
  let closed = false
  let controller: AbortController | undefined
  const jitter = () => Math.floor(Math.random() * JITTER_MS)
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

  async function connectOnce(): Promise<number | 'stop'> {
    controller = new AbortController()
    const headers: Record<string, string> = {
      Accept: 'text/event-stream',
      Authorization: `Bearer ${opts.key}`,
    }
    if (lastId) headers['Last-Event-ID'] = lastId
    opts.onState('connecting')
    const res = await fetch(opts.url, { headers, signal: controller.signal, cache: 'no-store' })
    if (res.status === 401) {
      opts.onState('unauthorized')
      return 'stop'
    }
    if (res.status === 429) {
      const seconds = Number(res.headers.get('retry-after') ?? '1')
      await res.body?.cancel()
      const wait = (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000 + jitter()
      opts.onState('waiting', `rate limited; retrying in ${Math.ceil(wait / 1000)} s`)
      return wait
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel()
      return retryMs + jitter()
    }
    opts.onState('open')
    await readFrames(res.body, (frame) => {
      if (frame.retry !== undefined) retryMs = frame.retry
      if (frame.id !== undefined) lastId = frame.id
      if (frame.data !== undefined)
        opts.onEvent({ event: frame.event ?? 'message', id: lastId ?? '', data: frame.data })
    })
    return retryMs + jitter()
  }

  void (async () => {
    while (!closed) {
      let wait: number | 'stop'
      try {
        wait = await connectOnce()
      } catch {
        wait = retryMs + jitter()
      }
      if (wait === 'stop' || closed) break
      if (!closed) opts.onState('waiting', `reconnecting in ${Math.ceil(wait / 1000)} s`)
      await sleep(wait)
    }
    opts.onState('closed')
  })()

  return {
    close() {
      closed = true
      controller?.abort()
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
