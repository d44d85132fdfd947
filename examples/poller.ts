// A polling client of the Contest Signals API, standing alone (Node.js ≥ 22.18, no dependencies):
//   1. reads the whole settled history of a series, page by page (`before` = the oldest expires_at
//      received; the repeated first row of each next page is dropped, since `before` is inclusive);
//   2. then polls the live contest and prints each new signal.
// Every request goes through `getJson`, which treats 429 as "slow down", never as a bad key: it waits
// Retry-After seconds plus an exponentially growing, jittered backoff, then tries again.
//
//   KEY=cs_… BASE=http://127.0.0.1:8080 SERIES=KXBTC15M node examples/poller.ts
//
// Settings (environment): KEY (required), BASE, SERIES, PAGE_SIZE (1–100, default 100), POLL_S
// (seconds between polls of the live contest, default 5), POLL_ROUNDS (default: poll forever; 0 reads
// the history only).

type Signal = {
  ticker: string
  raised_at: string
  side: 'up' | 'down'
  confidence: number
  entry_price_cents: number
  edge_cents: number
  outcome: 'pending' | 'win' | 'loss' | 'void'
}
type Contest = {
  ticker: string
  state: 'live' | 'expired' | 'settled'
  window: { opens_at: string; expires_at: string }
  settled_side: 'up' | 'down' | null
  signals: Signal[]
}

const env = process.env
const BASE = (env.BASE ?? 'http://127.0.0.1:8080').replace(/\/+$/, '')
const KEY = env.KEY ?? ''
const SERIES = env.SERIES ?? 'KXBTC15M'
const PAGE_SIZE = Number(env.PAGE_SIZE ?? 100)
const POLL_S = Number(env.POLL_S ?? 5)
const POLL_ROUNDS = env.POLL_ROUNDS === undefined ? Number.POSITIVE_INFINITY : Number(env.POLL_ROUNDS)

const MAX_ATTEMPTS = 8
const BACKOFF_BASE_MS = 250
const BACKOFF_CAP_MS = 30_000

const stats = { requests: 0, rateLimited: 0 }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** "Full jitter" backoff: a random wait up to base · 2^attempt, capped. */
function backoffMs(attempt: number): number {
  return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt)
}

/** GET a JSON document; 429, 503 and network failures are retried, a 404 is null, other errors throw. */
async function getJson<T>(path: string): Promise<T | null> {
  for (let attempt = 0; ; attempt++) {
    let res: Response
    try {
      stats.requests++
      res = await fetch(`${BASE}${path}`, { headers: { Authorization: `Bearer ${KEY}` } })
    } catch (err) {
      if (attempt + 1 >= MAX_ATTEMPTS) throw err
      const wait = backoffMs(attempt)
      console.log(`network error (${(err as Error).message}): retrying in ${(wait / 1000).toFixed(2)} s`)
      await sleep(wait)
      continue
    }
    if (res.ok) return (await res.json()) as T
    const body = await res.text()
    if (res.status === 404) return null
    if ((res.status === 429 || res.status === 503) && attempt + 1 < MAX_ATTEMPTS) {
      if (res.status === 429) stats.rateLimited++
      // Retry-After is the server's floor; the jittered backoff on top keeps many clients from
      // coming back in the same instant, and grows if the server keeps refusing.
      const retryAfterS = Number(res.headers.get('retry-after') ?? '1')
      const wait = (Number.isFinite(retryAfterS) ? retryAfterS : 1) * 1000 + backoffMs(attempt)
      console.log(
        `${res.status === 429 ? 'rate limited (429)' : 'unavailable (503)'}: waiting ${(wait / 1000).toFixed(2)} s (Retry-After ${retryAfterS} s, attempt ${attempt + 1})`,
      )
      await sleep(wait)
      continue
    }
    // 401 (a bad key), 400 (a bad parameter) and the rest are not worth retrying: show the problem.
    throw new Error(`GET ${path} → ${res.status}: ${body}`)
  }
}

/** The whole settled history, newest first, each contest once. */
async function readHistory(): Promise<Contest[]> {
  const all: Contest[] = []
  const seen = new Set<string>()
  let before: string | undefined
  for (let page = 1; ; page++) {
    const query = new URLSearchParams({ series: SERIES, limit: String(PAGE_SIZE) })
    if (before !== undefined) query.set('before', before)
    const body = await getJson<{ contests: Contest[] }>(`/v1/contests?${query}`)
    const contests = body?.contests ?? []
    const fresh = contests.filter((c) => !seen.has(c.ticker))
    for (const c of fresh) {
      seen.add(c.ticker)
      all.push(c)
    }
    console.log(`history page ${page}: ${contests.length} contests, ${fresh.length} new`)
    // A short page is the last; a page with nothing new (only the repeated row) is the end too.
    if (fresh.length === 0 || contests.length < PAGE_SIZE) return all
    before = contests[contests.length - 1]!.window.expires_at
  }
}

function describeSignal(s: Signal): string {
  return `${s.ticker} ${s.raised_at} ${s.side} confidence ${s.confidence} entry ${s.entry_price_cents}¢ edge ${s.edge_cents}¢`
}

async function main(): Promise<void> {
  if (KEY === '') throw new Error('set KEY to an API key')
  const history = await readHistory()
  const signals = history.flatMap((c) => c.signals)
  const wins = signals.filter((s) => s.outcome === 'win').length
  const graded = signals.filter((s) => s.outcome === 'win' || s.outcome === 'loss').length
  console.log(
    `history: ${history.length} contests, ${new Set(history.map((c) => c.ticker)).size} distinct, ${signals.length} signals, ` +
      `win rate ${graded === 0 ? '—' : ((100 * wins) / graded).toFixed(1)}%, ` +
      `from ${history.at(-1)?.window.expires_at ?? '—'} to ${history[0]?.window.expires_at ?? '—'}; ` +
      `${stats.requests} requests, ${stats.rateLimited} rate-limited`,
  )

  const seen = new Set<string>()
  for (let round = 1; round <= POLL_ROUNDS; round++) {
    const contest = await getJson<Contest>(`/v1/contests/active?series=${encodeURIComponent(SERIES)}`)
    if (contest === null) console.log('no live contest right now')
    else {
      for (const s of contest.signals) {
        const id = `${s.ticker} ${s.raised_at}`
        if (seen.has(id)) continue
        seen.add(id)
        console.log(`${round === 1 ? 'signal' : 'new signal'}: ${describeSignal(s)}`)
      }
    }
    if (round < POLL_ROUNDS) await sleep(POLL_S * 1000)
  }
  console.log(`done: ${stats.requests} requests, ${stats.rateLimited} rate-limited`)
}

main().catch((err: unknown) => {
  console.error(`poller: ${err instanceof Error ? err.message : String(err)}`)
  process.exitCode = 1
})
