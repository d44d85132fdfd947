// Best asks from Kalshi's bids-only order book (venue facts §1.8), in integer millionths until the
// final conversion to the port's cent scale. up = YES, down = NO.
import type { VenueQuote } from '../../ports/venue.ts'
import { malformed, type Parsed, parsed } from '../venue-http/parsed.ts'
import {
  MILLIONTHS_PER_DOLLAR,
  millionthsToCents,
  parseCountHundredths,
  parseDollarsMillionths,
} from './fixed-point.ts'

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The highest bid of one side in millionths, null when the side has no bids. An empty side may come
 * as `[]`, as a missing key or as `null` (old SDKs crashed on the last), so all three mean "none".
 * Levels are documented ascending with the best last, but the maximum is taken rather than trusted.
 */
function bestBid(levels: unknown, field: string): Parsed<number | null> {
  if (levels === undefined || levels === null) return parsed(null)
  if (!Array.isArray(levels)) return malformed(field)
  let best: number | null = null
  for (const level of levels) {
    if (!Array.isArray(level) || level.length < 2) return malformed(field)
    const price = parseDollarsMillionths(level[0])
    const count = parseCountHundredths(level[1])
    if (price === null || price > MILLIONTHS_PER_DOLLAR || count === null) return malformed(field)
    // a level at no price or with no contracts is nothing anyone can trade against
    if (price === 0 || count === 0) continue
    if (best === null || price > best) best = price
  }
  return parsed(best)
}

/** A bid at X on one side is an ask at 1 − X on the other; no bids there means no ask here. */
const askFacing = (oppositeBest: number | null): number | null =>
  oppositeBest === null ? null : millionthsToCents(MILLIONTHS_PER_DOLLAR - oppositeBest)

/**
 * The best asks of a `GET /markets/{ticker}/orderbook` body (`{ orderbook_fp: { yes_dollars,
 * no_dollars } }`): YES ask = 1 − best NO bid, NO ask = 1 − best YES bid, on the 0–100 cent scale.
 */
export function asksFromOrderbook(body: unknown): Parsed<VenueQuote> {
  if (!isRecord(body) || !isRecord(body.orderbook_fp)) return malformed('orderbook_fp')
  const book = body.orderbook_fp
  const yes = bestBid(book.yes_dollars, 'orderbook_fp.yes_dollars')
  if (!yes.ok) return yes
  const no = bestBid(book.no_dollars, 'orderbook_fp.no_dollars')
  if (!no.ok) return no
  return parsed({ upAskCents: askFacing(no.value), downAskCents: askFacing(yes.value) })
}
