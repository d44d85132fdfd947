// A resumable consumer of the Contest Signals stream, standing alone (Node.js ≥ 22.18, no
// dependencies; the reader itself runs in a browser as is). It reads Server-Sent Events over fetch — unlike the
// browser's EventSource it can send the Authorization header and survive a 429 — and it never loses
// or repeats an event across disconnects and server restarts:
//   - it remembers the id of the last event it processed and reconnects with Last-Event-ID;
//   - a clean end or a dropped connection is retried after the server's `retry:` delay, with jitter,
//     backing off exponentially while the server stays unreachable;
//   - a 429 is retried after Retry-After seconds plus jitter (it is not a bad key);
//   - a 401 stops it: retrying cannot fix a key.
//
//   KEY=cs_… BASE=http://127.0.0.1:8080 SERIES=KXBTC15M node examples/stream-consumer.ts
//
// Settings (environment): KEY (required), BASE, SERIES, STOP_AFTER_S (stop after this many seconds;
// default: run until interrupted).

const env = process.env
const BASE = (env.BASE ?? 'http://127.0.0.1:8080').replace(/\/+$/, '')
const KEY = env.KEY ?? ''
const SERIES = env.SERIES ?? 'KXBTC15M'
const STOP_AFTER_S = env.STOP_AFTER_S === undefined ? null : Number(env.STOP_AFTER_S)

const MAX_BACKOFF_MS = 30_000

type SseEvent = { event: string; id: string | null; data: string }

/**
 * An incremental SSE parser (the WHATWG rules that matter here): feed it text as it arrives, get
 * complete events back. `retry:` updates the reconnection delay; comments (`: keep-alive`) are skipped.
 */
function createSseParser(onRetry: (ms: number) => void) {
  let buffer = ''
  let event = ''
  let data: string[] = []
  let id: string | null = null
  return function feed(chunk: string): SseEvent[] {
    buffer += chunk
    const out: SseEvent[] = []
    for (;;) {
      const match = /\r\n|\n|\r/.exec(buffer)
      // A lone \r at the very end may be the first half of \r\n: wait for more.
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
      else if (field === 'retry' && /^[0-9]+$/.test(value)) onRetry(Number(value))
    }
  }
}

type Signal = {
  ticker: string
  raised_at: string
  side: string
  confidence: number
  entry_price_cents: number
}
type Contest = { ticker: string; state: string; settled_side: string | null; signals: Signal[] }

function describe(e: SseEvent): string {
  const payload = JSON.parse(e.data) as Contest | { signal: Signal; contest: Contest }
  if ('signal' in payload) {
    const s = payload.signal
    return `${s.ticker} ${s.raised_at} ${s.side} confidence ${s.confidence} entry ${s.entry_price_cents}¢`
  }
  if (e.event === 'contest.settled') return `${payload.ticker} settled ${payload.settled_side ?? 'void'}`
  return `${payload.ticker} ${payload.state}, ${payload.signals.length} signals`
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/** A wait of `ms` scaled by a random factor in [0.5, 1.5): reconnecting clients spread out. */
const jitter = (ms: number) => Math.round(ms * (0.5 + Math.random()))

async function main(): Promise<void> {
  if (KEY === '') throw new Error('set KEY to an API key')
  const stop = new AbortController()
  process.once('SIGINT', () => stop.abort())
  process.once('SIGTERM', () => stop.abort())
  if (STOP_AFTER_S !== null) setTimeout(() => stop.abort(), STOP_AFTER_S * 1000).unref()

  let lastEventId: string | null = null
  let retryMs = 3000
  let failures = 0
  const stats = { events: 0, connections: 0, duplicates: 0, rateLimited: 0 }
  const seen = new Set<string>()

  while (!stop.signal.aborted) {
    const headers: Record<string, string> = { Authorization: `Bearer ${KEY}`, Accept: 'text/event-stream' }
    if (lastEventId !== null) headers['Last-Event-ID'] = lastEventId
    let wait: number
    try {
      const res = await fetch(`${BASE}/v1/stream/contests?series=${encodeURIComponent(SERIES)}`, {
        headers,
        signal: stop.signal,
      })
      if (res.status === 401) throw new Error(`the key was refused (401): ${await res.text()}`)
      if (res.status === 429) {
        await res.body?.cancel()
        stats.rateLimited++
        const retryAfterS = Number(res.headers.get('retry-after') ?? '1')
        wait = (Number.isFinite(retryAfterS) ? retryAfterS : 1) * 1000 + Math.random() * 1000
        console.log(`rate limited (429): retrying in ${(wait / 1000).toFixed(2)} s`)
        await sleep(wait, stop.signal)
        continue
      }
      if (!res.ok || res.body === null) throw new Error(`unexpected answer ${res.status}`)
      stats.connections++
      failures = 0
      console.log(lastEventId === null ? 'connected (fresh)' : `connected (resuming after ${lastEventId})`)
      const feed = createSseParser((ms) => {
        retryMs = ms
      })
      const decoder = new TextDecoder()
      for await (const chunk of res.body) {
        for (const e of feed(decoder.decode(chunk as Uint8Array, { stream: true }))) {
          // Correlate on the JSON, never on the id's contents; the id is only handed back on resume.
          if (e.id !== null && seen.has(e.id)) {
            stats.duplicates++
            console.log(`duplicate ${e.id} ${e.event}`)
            continue
          }
          if (e.id !== null) {
            seen.add(e.id)
            lastEventId = e.id
          }
          stats.events++
          console.log(`${e.id} ${e.event} ${describe(e)}`)
        }
      }
      // The server ended the stream (a restart or a shutdown): come back after its retry delay.
      wait = jitter(retryMs)
      console.log(`stream ended: reconnecting in ${(wait / 1000).toFixed(2)} s`)
    } catch (err) {
      if (stop.signal.aborted) break
      if (err instanceof Error && err.message.startsWith('the key was refused')) throw err
      failures++
      wait = jitter(Math.min(MAX_BACKOFF_MS, retryMs * 2 ** (failures - 1)))
      const reason =
        err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err)
      console.log(`disconnected (${reason}): reconnecting in ${(wait / 1000).toFixed(2)} s`)
    }
    await sleep(wait, stop.signal)
  }
  console.log(
    `stopped: ${stats.events} events, ${stats.connections} connections, ${stats.duplicates} duplicates, ${stats.rateLimited} rate-limited`,
  )
}

main().catch((err: unknown) => {
  console.error(`stream-consumer: ${err instanceof Error ? err.message : String(err)}`)
  process.exitCode = 1
})
