// The top of one CLOB token book (`GET /book?token_id=…`, venue facts §3.4.2): best ask = the lowest
// ask price, best bid = the highest bid price, computed over every level. The venue's guide and live
// captures serve levels worst-first (best last) while its OpenAPI text says best-first, so position
// is never trusted: `asks[0]` of a worst-first book is the 0.99 "ghost" level. Prices are decimal
// strings and sub-cent ticks are kept (0.005 → 0.5 ¢). Pure: the tapes replay bodies through it.
import { malformed, type Parsed, parsed } from '../venue-http/parsed.ts'
import { decimalOf, isRecord, millionthsToCents, priceMillionths } from './venue-values.ts'

export type BookTop = {
  /** lowest ask on the 0–100 cent scale, null when nobody offers the token */
  bestAskCents: number | null
  /** highest bid on the same scale, null when nobody bids */
  bestBidCents: number | null
}

/** Extremes of one side's levels in millionths; levels with no size are nothing to trade against. */
function extreme(levels: unknown, field: string, pick: 'min' | 'max'): Parsed<number | null> {
  if (levels === undefined || levels === null) return parsed(null)
  if (!Array.isArray(levels)) return malformed(field)
  let best: number | null = null
  for (const level of levels) {
    if (!isRecord(level)) return malformed(field)
    const price = priceMillionths(level.price)
    if (price === null || price === 0 || price > 1_000_000) return malformed(`${field}.price`)
    const size = decimalOf(level.size)
    if (size === null) return malformed(`${field}.size`)
    if (size === 0) continue
    if (best === null || (pick === 'min' ? price < best : price > best)) best = price
  }
  return parsed(best)
}

/** The token a `/book` body echoes (`asset_id`, compared as text as bookTop compares it), if any. */
export function echoedTokenId(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined
  const id = body.asset_id
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined
}

/**
 * The best ask and bid of a `/book` body. `tokenId`, when given, must be the `asset_id` the venue
 * echoed (when it echoes one): a book of another token is no quote for this side.
 */
export function bookTop(body: unknown, tokenId?: string): Parsed<BookTop> {
  if (!isRecord(body)) return malformed('book')
  if (tokenId !== undefined && body.asset_id !== undefined && String(body.asset_id) !== tokenId)
    return malformed('asset_id')
  const ask = extreme(body.asks, 'asks', 'min')
  if (!ask.ok) return ask
  const bid = extreme(body.bids, 'bids', 'max')
  if (!bid.ok) return bid
  return parsed({
    bestAskCents: ask.value === null ? null : millionthsToCents(ask.value),
    bestBidCents: bid.value === null ? null : millionthsToCents(bid.value),
  })
}
