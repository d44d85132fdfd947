// The same load on every store whose memory bench:heap and bench:growth compare: `requests` reads,
// one after another, over the history page, the active contest and each of the newest 100 contests
// by ticker, each from its own client address (so the limiter sees many).
import type { BenchService } from './service.ts'

const SERIES = 'KXBTC15M'

export async function loadHistoryReads(
  service: Pick<BenchService, 'url' | 'key'>,
  requests: number,
): Promise<void> {
  const headers = { Authorization: `Bearer ${service.key}` }
  const history = (await (
    await fetch(`${service.url}/v1/contests?series=${SERIES}&limit=100`, { headers })
  ).json()) as { contests: { ticker: string }[] }
  const urls = [
    `/v1/contests?series=${SERIES}&limit=100`,
    `/v1/contests/active?series=${SERIES}`,
    ...history.contests.map((c) => `/v1/contests/${c.ticker}`),
  ]
  for (let i = 0; i < requests; i++) {
    const res = await fetch(`${service.url}${urls[i % urls.length]}`, {
      headers: { ...headers, 'X-Forwarded-For': `11.0.${(i >> 8) & 255}.${i & 255}` },
    })
    await res.arrayBuffer()
  }
}
