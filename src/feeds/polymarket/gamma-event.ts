// One Gamma event body (`GET /events/slug/{slug}`, or an element of `GET /events?slug=…`) validated
// into the market the adapter follows (venue facts §3.2.3–§3.2.5, decisions §14), or rejected naming the
// field that was wrong. Pure: the fetching layer, the tapes and the sandbox all map bodies through it.
//
// Identity is cross-checked, never assumed: the slug names the window (`btc-updown-15m-<S>`), and the
// market's `eventStartTime` must be S and its `endDate` S + 900 s. Outcomes, their prices and their
// token ids are JSON-encoded strings paired by position and then used by label, never by index.
// Identity (slug, times, condition id, token ids, outcomes) is checked strictly: a body that fails it
// is rejected. Optional fields are read leniently: one that does not parse (an `outcomePrices` string
// with 40 decimals or an exponent, a `resolutionSource` on an unknown host) is read as null and named
// in `unreadable`, so one odd field never rejects the event and a finished window still settles.
import type { MarketPhase } from '../../ports/venue.ts'
import { decimalOf, isRecord, jsonArrayOf, timestampOf } from './venue-values.ts'
import { startOfSlug, WINDOW_S } from './window-slug.ts'

export type OutcomeLabel = 'up' | 'down'

/**
 * How the market settles (venue facts §3.3.1–§3.3.2): the venue's price is averaged over
 * `averagingS` seconds ending at each instant (0: a point price), and a tie goes up.
 */
export type SettlementRule = {
  averagingS: number
  tieGoesUp: true
  /** where it was read: the market's `cryptoMarketConfig`, its `resolutionSource`, or (neither given) its date */
  from: 'cryptoMarketConfig' | 'resolutionSource' | 'date'
}

export type PolymarketMarket = {
  /** the event slug: the contest's ticker */
  slug: string
  /** epoch ms: `eventStartTime` = S, `endDate` = S + 900 s */
  opensAt: number
  expiresAt: number
  conditionId: string | null
  /** the CLOB token of each outcome, by label */
  tokenIds: Record<OutcomeLabel, string>
  active: boolean
  closed: boolean
  archived: boolean
  /** null when the venue did not say */
  acceptingOrders: boolean | null
  /** `umaResolutionStatus`: `resolved` once settled, null before (other words are waited on) */
  resolutionStatus: string | null
  /** `outcomePrices` by label (0–1), null when absent */
  outcomePrices: Record<OutcomeLabel, number> | null
  /** `eventMetadata.priceToBeat` and `.finalPrice` in dollars, null until published */
  priceToBeat: number | null
  finalPrice: number | null
  rule: SettlementRule
}

/** Windows starting before this settle on point prices, after it on a 60 s TWAP (venue facts §3.1.4). */
export const TWAP_RULE_FROM_MS = Date.UTC(2026, 7, 7)
const TWAP_SOURCE = /twap-(\d{1,4})s/i
const ORACLE_HOST = 'data.chain.link'
const TOKEN_ID = /^\d{1,100}$/
/** a condition id: 0x and 64 hex digits (venue facts §3.2.5) */
const CONDITION_ID = /^(0x[0-9a-fA-F]{64})?$/

export type GammaEventParse =
  /** `unreadable`: optional fields that did not parse and were read as null (the caller counts them) */
  | { ok: true; market: PolymarketMarket; unreadable: string[] }
  | { ok: false; field: string; slug: string | null }

/**
 * Validates one Gamma event. `requestedSlug`, when given, must be the slug the venue answered with
 * (list filters have been reported to be ignored silently, venue facts §3.2.2).
 */
export function parseGammaEvent(raw: unknown, requestedSlug?: string): GammaEventParse {
  if (!isRecord(raw)) return { ok: false, field: 'event', slug: null }
  const slug = raw.slug
  if (typeof slug !== 'string' || slug === '') return { ok: false, field: 'slug', slug: null }
  const bad = (field: string): GammaEventParse => ({ ok: false, field, slug })
  if (requestedSlug !== undefined && slug !== requestedSlug) return bad('slug')
  const startS = startOfSlug(slug)
  if (startS === null) return bad('slug')

  const markets = raw.markets
  if (!Array.isArray(markets) || markets.length !== 1) return bad('markets')
  const m = markets[0]
  if (!isRecord(m)) return bad('markets[0]')
  if (m.slug !== undefined && m.slug !== slug) return bad('markets[0].slug')

  const opensAt = timestampOf(m.eventStartTime ?? raw.eventStartTime ?? raw.startTime)
  if (opensAt === null || opensAt !== startS * 1000) return bad('eventStartTime')
  const expiresAt = timestampOf(m.endDate ?? raw.endDate)
  if (expiresAt === null || expiresAt !== (startS + WINDOW_S) * 1000) return bad('endDate')

  const labels = labelsOf(m.outcomes)
  if (!labels) return bad('outcomes')
  const tokens = jsonArrayOf(m.clobTokenIds)
  if (
    tokens?.length !== 2 ||
    !tokens.every((t) => typeof t === 'string' && TOKEN_ID.test(t)) ||
    tokens[0] === tokens[1]
  )
    return bad('clobTokenIds')
  const tokenIds = byLabel(labels, tokens as string[])
  const rawConditionId = m.conditionId ?? null
  if (rawConditionId !== null && (typeof rawConditionId !== 'string' || !CONDITION_ID.test(rawConditionId)))
    return bad('conditionId')
  const conditionId = rawConditionId === null || rawConditionId === '' ? null : rawConditionId

  // optional fields from here: what does not parse is null, and named
  const unreadable: string[] = []
  const lenient = <T>(field: string, value: T | undefined): T | null => {
    if (value !== undefined) return value
    unreadable.push(field)
    return null
  }

  let outcomePrices: Record<OutcomeLabel, number> | null = null
  if (m.outcomePrices !== undefined && m.outcomePrices !== null) {
    const prices = jsonArrayOf(m.outcomePrices)?.map(decimalOf)
    outcomePrices = lenient(
      'outcomePrices',
      prices?.length !== 2 || prices.some((p) => p === null || p > 1)
        ? undefined
        : byLabel(labels, prices as number[]),
    )
  }

  const flag = (name: 'active' | 'closed' | 'archived', dflt: boolean): boolean | undefined => {
    const v = m[name] ?? raw[name]
    if (v === undefined || v === null) return dflt
    return typeof v === 'boolean' ? v : undefined
  }
  const active = flag('active', true)
  if (active === undefined) return bad('active')
  const closed = flag('closed', false)
  if (closed === undefined) return bad('closed')
  const archived = flag('archived', false)
  if (archived === undefined) return bad('archived')
  const accepting = m.acceptingOrders ?? null
  const acceptingOrders = lenient(
    'acceptingOrders',
    accepting === null || typeof accepting === 'boolean' ? accepting : undefined,
  )
  const status = m.umaResolutionStatus ?? null
  const resolutionStatus = lenient(
    'umaResolutionStatus',
    status === null || typeof status === 'string' ? status : undefined,
  )

  const rawMetadata = raw.eventMetadata ?? null
  const metadata = lenient(
    'eventMetadata',
    rawMetadata === null || isRecord(rawMetadata) ? rawMetadata : undefined,
  )
  const priceToBeat = lenient('eventMetadata.priceToBeat', dollarsOf(metadata?.priceToBeat))
  const finalPrice = lenient('eventMetadata.finalPrice', dollarsOf(metadata?.finalPrice))

  // a resolution source on a host this adapter does not know says nothing it can use: the rule is then
  // read from the market's config or its date, as for a market without one
  const rawSource = m.resolutionSource ?? raw.resolutionSource ?? null
  const sourceReadable =
    rawSource === null ||
    (typeof rawSource === 'string' && (rawSource === '' || hostOf(rawSource) === ORACLE_HOST))
  const resolutionSource = lenient('resolutionSource', sourceReadable ? rawSource : undefined) as
    | string
    | null
  const rule = ruleOf(m, resolutionSource, opensAt)
  if (typeof rule === 'string') return bad(rule)

  return parsedMarket(
    {
      slug,
      opensAt,
      expiresAt,
      conditionId,
      tokenIds,
      active,
      closed,
      archived,
      acceptingOrders,
      resolutionStatus,
      outcomePrices,
      priceToBeat,
      finalPrice,
      rule,
    },
    unreadable,
  )
}

const parsedMarket = (market: PolymarketMarket, unreadable: string[]): GammaEventParse => ({
  ok: true,
  market,
  unreadable,
})

/** Exactly the labels Up and Down, in whatever order (case and spaces aside), else null. */
function labelsOf(value: unknown): OutcomeLabel[] | null {
  const decoded = jsonArrayOf(value)
  if (decoded?.length !== 2) return null
  const labels = decoded.map((l) => (typeof l === 'string' ? l.trim().toLowerCase() : null))
  if (!labels.includes('up') || !labels.includes('down')) return null
  return labels as OutcomeLabel[]
}

function byLabel<T>(labels: readonly OutcomeLabel[], values: readonly T[]): Record<OutcomeLabel, T> {
  return labels[0] === 'up' ? { up: values[0]!, down: values[1]! } : { up: values[1]!, down: values[0]! }
}

/** A published dollar value (number or decimal string), null when absent, undefined when malformed. */
function dollarsOf(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return null
  const n = decimalOf(value)
  return n !== null && n > 0 ? n : undefined
}

/**
 * The market's settlement rule, or the field that makes it one this adapter does not price: another
 * asset or duration, or a resolution source that is not Chainlink's. Markets without
 * `cryptoMarketConfig` (the old ones) are read from their resolution source, then from their date.
 */
function ruleOf(m: Record<string, unknown>, source: string | null, opensAt: number): SettlementRule | string {
  const config = m.cryptoMarketConfig ?? null
  if (config !== null) {
    if (!isRecord(config)) return 'cryptoMarketConfig'
    if (config.asset !== undefined && String(config.asset).toLowerCase() !== 'btc')
      return 'cryptoMarketConfig.asset'
    if (config.duration !== undefined && config.duration !== '15m') return 'cryptoMarketConfig.duration'
    if (config.twapEnabled === false) return { averagingS: 0, tieGoesUp: true, from: 'cryptoMarketConfig' }
    if (config.twapEnabled === true) {
      const lookback = decimalOf(config.twapLookbackSeconds)
      if (lookback === null || !Number.isInteger(lookback) || lookback < 1 || lookback > WINDOW_S)
        return 'cryptoMarketConfig.twapLookbackSeconds'
      return { averagingS: lookback, tieGoesUp: true, from: 'cryptoMarketConfig' }
    }
    if (config.twapEnabled !== undefined) return 'cryptoMarketConfig.twapEnabled'
  }
  if (typeof source === 'string' && source !== '') {
    const twap = TWAP_SOURCE.exec(source)
    return { averagingS: twap ? Number(twap[1]) : 0, tieGoesUp: true, from: 'resolutionSource' }
  }
  return { averagingS: opensAt >= TWAP_RULE_FROM_MS ? 60 : 0, tieGoesUp: true, from: 'date' }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase()
  } catch {
    return null
  }
}

/**
 * Where the market stands at `now` (the port's MarketPhase): Gamma may keep saying `active` and not
 * `closed` for a while after the end (it caches), so the window's end closes it whatever the flags.
 */
export function phaseAt(market: PolymarketMarket, now: number): MarketPhase {
  if (market.closed || market.archived || now >= market.expiresAt) return 'closed'
  if (now < market.opensAt) return 'upcoming'
  return market.active && market.acceptingOrders !== false ? 'trading' : 'paused'
}
