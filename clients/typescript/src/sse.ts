// An incremental Server-Sent Events parser (the WHATWG rules the service's stream uses): feed it text
// as it arrives, in chunks cut anywhere, and get whole events back. Written here rather than taken
// as a dependency: the client then installs with nothing else, in Node and in browsers, and the
// service sends a small subset (event, id, data, retry, comments).

export type SseEvent = { event: string; id: string | null; data: string }

export type SseParser = {
  /** The events completed by this chunk, in order. */
  feed(chunk: string): SseEvent[]
  /** The last `retry:` the server sent, in ms, or null. */
  readonly retryMs: number | null
}

export function createSseParser(): SseParser {
  let buffer = ''
  let event = ''
  let data: string[] = []
  // the last event id persists across events until the server sends another (WHATWG)
  let id: string | null = null
  let retryMs: number | null = null
  return {
    get retryMs() {
      return retryMs
    },
    feed(chunk) {
      buffer += chunk
      const out: SseEvent[] = []
      for (;;) {
        const match = /\r\n|\n|\r/.exec(buffer)
        // a lone \r at the very end may be the first half of \r\n: wait for more
        if (!match || (match[0] === '\r' && match.index === buffer.length - 1)) return out
        const line = buffer.slice(0, match.index)
        buffer = buffer.slice(match.index + match[0].length)
        if (line === '') {
          if (data.length > 0) out.push({ event: event || 'message', id, data: data.join('\n') })
          event = ''
          data = []
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon === -1 ? line : line.slice(0, colon)
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') event = value
        else if (field === 'data') data.push(value)
        else if (field === 'id' && !value.includes('\0')) id = value
        else if (field === 'retry' && /^[0-9]+$/.test(value)) retryMs = Number(value)
      }
    },
  }
}
