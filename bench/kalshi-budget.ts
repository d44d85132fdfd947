// `npm run bench:kalshi-budget`: what following one series costs in requests and bytes a day, measured
// against the loopback Kalshi fixture holding a realistic day of KXBTC15M markets (about 96 windows
// listed ahead as `initialized`, the live one, and a day of finalized ones: venue facts §1.14, §2.3).
// The real adapter polls it; every request and response byte is counted and scaled to a day at the
// default KALSHI_POLL_S=5. Order-book requests (one per contest minute, ~1,344 a day) are the
// engine's, not the poll's, and are left out of both figures.
import { createKalshiVenue } from '../src/feeds/kalshi/kalshi-venue.ts'
import { makeMarket, startKalshiFixture } from '../test/fixtures/kalshi-fixture.ts'

const QUARTER = 15 * 60_000
const POLLS = 40
const POLL_S = 5
const POLLS_PER_DAY = 86_400 / POLL_S

const quiet = { info() {}, warn() {}, error() {}, debug() {} }

const kalshi = await startKalshiFixture()
const now = Date.now()
const current = Math.floor(now / QUARTER) * QUARTER
// a day of finalized windows behind, the live one, and a day of initialized ones ahead
for (let open = current - 96 * QUARTER; open <= current + 95 * QUARTER; open += QUARTER) {
  const past = open + QUARTER <= now
  const live = open <= now && now < open + QUARTER
  kalshi.addMarket(
    makeMarket({
      openTime: open,
      closeTime: open + QUARTER,
      status: past ? 'finalized' : live ? 'active' : 'initialized',
      ...(past || live ? { floorStrike: 68_000 } : {}),
      ...(past
        ? { result: 'yes', expirationValue: '68100.00', extra: { settlement_value_dollars: '1.0000' } }
        : {}),
    }),
  )
}

const venue = createKalshiVenue({
  baseUrl: kalshi.baseUrl,
  series: ['KXBTC15M'],
  pollMs: 20,
  wallClock: { now: () => Date.now() },
  logger: quiet,
  maxRequestsPerSec: 1_000,
})
await venue.start()
const from = kalshi.requests.length
// a poll starts with its first listing: `status=open` before issue 16, the close window since
const polls = () =>
  kalshi.requests.filter(
    (r) =>
      r.path.endsWith('/markets') && !r.query.cursor && (r.query.status === 'open' || r.query.min_close_ts),
  ).length
const base = polls()
while (polls() - base < POLLS) await new Promise((r) => setTimeout(r, 10))
await venue.close()
const seen = kalshi.requests.slice(from).filter((r) => !r.path.endsWith('/orderbook'))
await kalshi.close()

const perPoll = (n: number) => n / POLLS
const byPath = new Map<string, { requests: number; bytes: number }>()
for (const r of seen) {
  const key =
    r.path.replace(/KXBTC15M-[^/]+/, '{ticker}') + (r.query.status ? `?status=${r.query.status}` : '')
  const entry = byPath.get(key) ?? { requests: 0, bytes: 0 }
  entry.requests++
  entry.bytes += r.bytes
  byPath.set(key, entry)
}
const requests = seen.length
const bytes = seen.reduce((sum, r) => sum + r.bytes, 0)
console.log(
  `one series, ${POLLS} polls measured, scaled to ${POLLS_PER_DAY} polls a day (KALSHI_POLL_S=${POLL_S})`,
)
for (const [path, e] of [...byPath].sort()) {
  console.log(
    `  ${path.padEnd(50)} ${perPoll(e.requests).toFixed(2)} req/poll  ${Math.round(perPoll(e.bytes))} B/poll`,
  )
}
const day = (n: number) => perPoll(n) * POLLS_PER_DAY
console.log(
  `per day: ${Math.round(day(requests)).toLocaleString('en-US')} requests, ${(day(bytes) / 1e6).toFixed(1)} MB of response bodies`,
)
// Polls just after each window boundary (venue-http/boundary-polls.ts): KXBTC15M's windows are
// contiguous, so one boundary per quarter hour, 96 a day. A boundary poll restarts the cadence, so it
// adds at most one poll; while the venue still shows the new market unopened, at most 3 re-polls.
// The schedule's hourly read is not part of a poll.
const BOUNDARIES_PER_DAY = 96
const pollRequests = perPoll(requests - (byPath.get('/trade-api/v2/exchange/schedule')?.requests ?? 0))
console.log(
  `boundary polls: at most ${Math.round(BOUNDARIES_PER_DAY * pollRequests).toLocaleString('en-US')} more requests a day with the venue on time, ${Math.round(4 * BOUNDARIES_PER_DAY * pollRequests).toLocaleString('en-US')} when it opens every window late`,
)
