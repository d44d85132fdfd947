// Contest, signal and key factories for every test: overridable fields, random series and tickers so
// each test owns its data, and seeding helpers that write them through the Store port.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { ApiKeyRecord } from '../../src/domain/api-key.ts'
import {
  CONTEST_MS,
  type Contest,
  MINUTE_MS,
  type Settlement,
  type Signal,
  settleContest,
} from '../../src/domain/contest.ts'
import type { ContestVenue } from '../../src/domain/venue-refs.ts'

const QUARTER_HOUR = 15 * MINUTE_MS

/** A quarter-hour boundary, so windows look like the venue's: the default opening of a contest. */
export const BASE = Date.UTC(2026, 10, 22, 14, 0, 0)
/** The default series of a contest. */
export const SERIES = 'KXTEST15M'
export const UP: Settlement = { kind: 'settled', side: 'up', priceDollars: 97_250.5 }
export const DOWN: Settlement = { kind: 'settled', side: 'down', priceDollars: 97_000.25 }

/** Ten random characters of [0-9A-F], for names no other test uses. */
export function suffix(): string {
  return randomUUID().replaceAll('-', '').slice(0, 10).toUpperCase()
}

export function newSeries(): string {
  return `KXT${suffix()}`
}

/** The start of the quarter hour containing `at`. */
export function quarterHourOf(at: number): number {
  return Math.floor(at / QUARTER_HOUR) * QUARTER_HOUR
}

/**
 * The expires_at of a contest seeded live in the wall clock's quarter hour, hours on: the api answers
 * a contest past its expires_at as expired by the clock, and a loaded run can cross a quarter hour
 * between seeding the contest and asking for it (venues may set any window, decisions §8).
 */
export function expiryOutlastingTheRun(opensAt: number): number {
  return opensAt + 16 * QUARTER_HOUR
}

/** A live contest; its ticker is random, so contests of one series and window never collide. */
export function makeContest(overrides: Partial<Contest> = {}): Contest {
  const series = overrides.series ?? SERIES
  const opensAt = overrides.opensAt ?? BASE
  const ticker = overrides.ticker ?? `${series}-${suffix()}`
  return {
    ticker,
    series,
    state: 'live',
    opensAt,
    expiresAt: opensAt + CONTEST_MS,
    strikePriceDollars: 97_123.45,
    settledSide: null,
    settledPriceDollars: null,
    voided: false,
    venue: kalshiVenue(ticker),
    signals: [],
    ...overrides,
  }
}

/** Kalshi's references of a market: its ticker, and the event's (the ticker less its last part). */
export function kalshiVenue(ticker: string): ContestVenue {
  return {
    name: 'kalshi',
    refs: { marketTicker: ticker, eventTicker: ticker.slice(0, ticker.lastIndexOf('-')) },
  }
}

/**
 * Polymarket's references of a window's event (venue facts §3.2.3): a 0x-prefixed 32-byte condition
 * id and two decimal CLOB token ids, derived from the slug so each window's differ.
 */
export function polymarketVenue(slug: string): ContestVenue {
  const digest = createHash('sha256').update(slug).digest()
  const tokenOf = (offset: number) =>
    BigInt(`0x${digest.subarray(offset, offset + 16).toString('hex')}`).toString()
  return {
    name: 'polymarket',
    refs: {
      slug,
      conditionId: `0x${digest.toString('hex')}`,
      upTokenId: tokenOf(0),
      downTokenId: tokenOf(16),
    },
  }
}

/** A pending signal raised in minute `overrides.minute` (default 1) of the contest. */
export function makeSignal(
  contest: Pick<Contest, 'ticker' | 'opensAt'>,
  overrides: Partial<Signal> = {},
): Signal {
  const minute = overrides.minute ?? 1
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

/** A settled contest as the simulator's backfill hands it over: signals already graded. */
export function makeSettledContest(overrides: Partial<Contest> = {}, settlement: Settlement = UP): Contest {
  const contest = makeContest({ ...overrides, signals: [] })
  const signals = overrides.signals ?? [
    makeSignal(contest, { minute: 1, side: 'up' }),
    makeSignal(contest, { minute: 2, side: 'down', confidence: 48.25, entryPriceCents: 45, edgeCents: 3.25 }),
  ]
  return settleContest({ ...contest, signals }, settlement)
}

/** A contest whose window ends at `expiresAt`. */
export function expiringAt(expiresAt: number, overrides: Partial<Contest> = {}): Partial<Contest> {
  return { opensAt: expiresAt - CONTEST_MS, expiresAt, ...overrides }
}

/** A stored key whose digest is of no known secret: for the store, not for authenticating. */
export function makeKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: randomUUID(),
    label: 'test',
    digest: randomBytes(32).toString('hex'),
    prefix: `cs_${randomBytes(4).toString('hex').slice(0, 7)}`,
    createdAt: BASE,
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  }
}

export type IssuedKey = { record: ApiKeyRecord; key: string }

/** A key with its secret, whose record authenticates requests carrying that secret. */
export function makeIssuedKey(label = 'test', createdAt = Date.now()): IssuedKey {
  const key = `cs_${randomBytes(20).toString('base64url')}`
  const digest = createHash('sha256').update(key).digest('hex')
  return { key, record: makeKey({ label, createdAt, digest, prefix: key.slice(0, 10) }) }
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
    const s = makeSignal(contest, { minute, side: minute % 2 === 0 ? 'down' : 'up' })
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
    makeSettledContest(expiringAt(newestExpiresAt - i * QUARTER_HOUR, { series })),
  )
  await store.importHistory(contests)
  return contests
}

let nextQuarter = 0

/**
 * A live contest in the quarter hour after the previous one this returned (from BASE): the contests
 * a stream sees, in the order it sees them. The ticker names the window and the count.
 */
export function makeNextContest(series: string): Contest {
  const n = nextQuarter++
  const opensAt = BASE + n * QUARTER_HOUR
  return makeContest({ ticker: `${series}-${opensAt}-${n}`, series, opensAt })
}

/** The signal of minute `minute` of a contest: up on odd minutes, down on even, 250 ms in. */
export function makeMinuteSignal(contest: Pick<Contest, 'ticker' | 'opensAt'>, minute: number): Signal {
  return makeSignal(contest, {
    minute,
    raisedAt: contest.opensAt + minute * MINUTE_MS + 250,
    side: minute % 2 === 1 ? 'up' : 'down',
    entryPriceCents: 55,
    edgeCents: 6.5,
  })
}
