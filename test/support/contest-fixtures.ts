// Contest, signal and key factories for HTTP tests: random series per test (each test owns its
// data), venue-shaped tickers, overridable fields.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { ApiKeyRecord } from '../../src/domain/api-key.ts'
import { CONTEST_MS, type Contest, MINUTE_MS, type Signal } from '../../src/domain/contest.ts'

const QUARTER_HOUR = 15 * MINUTE_MS

export function newSeries(prefix = 'KXT'): string {
  return `${prefix}${randomBytes(4).toString('hex').toUpperCase()}`
}

/** The start of the quarter hour containing `at`. */
export function quarterHourOf(at: number): number {
  return Math.floor(at / QUARTER_HOUR) * QUARTER_HOUR
}

export function tickerFor(series: string, expiresAt: number): string {
  const d = new Date(expiresAt)
  const mon = d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' }).toUpperCase()
  const pad = (n: number) => String(n).padStart(2, '0')
  const stamp = `${pad(d.getUTCFullYear() % 100)}${mon}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`
  return `${series}-${stamp}-${pad(d.getUTCMinutes())}`
}

export function makeContest(overrides: Partial<Contest> & { series: string; opensAt: number }): Contest {
  const expiresAt = overrides.expiresAt ?? overrides.opensAt + CONTEST_MS
  return {
    ticker: tickerFor(overrides.series, expiresAt),
    state: 'live',
    expiresAt,
    strikePriceDollars: 97_123.45,
    settledSide: null,
    settledPriceDollars: null,
    voided: false,
    signals: [],
    ...overrides,
  }
}

export function makeSignal(contest: Contest, minute: number, overrides: Partial<Signal> = {}): Signal {
  return {
    ticker: contest.ticker,
    minute,
    raisedAt: contest.opensAt + minute * MINUTE_MS + 123,
    side: 'up',
    confidence: 61.5,
    entryPriceCents: 54,
    edgeCents: 7.5,
    outcome: 'pending',
    modelVersion: 'gbm-ewma-1',
    ...overrides,
  }
}

/** A settled contest with `signalCount` graded signals (up wins). */
export function makeSettledContest(series: string, opensAt: number, signalCount = 2): Contest {
  const base = makeContest({
    series,
    opensAt,
    state: 'settled',
    settledSide: 'up',
    settledPriceDollars: 97_200.5,
  })
  const signals = Array.from({ length: signalCount }, (_, i) =>
    makeSignal(base, i + 1, { side: i % 2 === 0 ? 'up' : 'down', outcome: i % 2 === 0 ? 'win' : 'loss' }),
  )
  return { ...base, signals }
}

export type IssuedKey = { record: ApiKeyRecord; key: string }

export function makeKey(label = 'test', createdAt = Date.now()): IssuedKey {
  const key = `cs_${randomBytes(20).toString('base64url')}`
  return {
    key,
    record: {
      id: randomUUID(),
      label,
      digest: createHash('sha256').update(key).digest('hex'),
      prefix: key.slice(0, 10),
      createdAt,
      lastUsedAt: null,
      revokedAt: null,
    },
  }
}

type SeedStore = {
  openContest(c: Contest): Promise<unknown>
  addSignal(s: Signal): Promise<unknown>
  importHistory(c: Contest[]): Promise<number>
}

/** Opens the live contest of `series` for the current quarter hour and raises `signals` signals on it. */
export async function seedLiveContest(store: SeedStore, series: string, signals = 2): Promise<Contest> {
  const contest = makeContest({ series, opensAt: quarterHourOf(Date.now()) })
  await store.openContest(contest)
  const raised = []
  for (let minute = 1; minute <= signals; minute++) {
    const s = makeSignal(contest, minute, { side: minute % 2 === 0 ? 'down' : 'up' })
    await store.addSignal(s)
    raised.push(s)
  }
  return { ...contest, signals: raised }
}

/**
 * Imports `count` settled quarter-hour contests of `series`, the newest expiring at `newestExpiresAt`;
 * returns them newest first, the order the history endpoint promises.
 */
export async function seedHistory(
  store: SeedStore,
  series: string,
  count: number,
  newestExpiresAt = quarterHourOf(Date.now()) - QUARTER_HOUR,
): Promise<Contest[]> {
  const contests = Array.from({ length: count }, (_, i) =>
    makeSettledContest(series, newestExpiresAt - (i + 1) * QUARTER_HOUR),
  )
  await store.importHistory(contests)
  return contests
}
