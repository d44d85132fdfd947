// The schemas of a contest's venue and its references (decisions §16): what a bot hands the venue's
// own client (Kalshi's SDK, Polymarket's CLOB client) to trade the contest without a second look-up.
// Registered by $id like the other shared shapes, so the document lists each once.
import { Type } from 'typebox'
import { type RealVenueName, SERIES_PREFIXES } from '../domain/venues.ts'

/** The venues a contest may name: the real ones (the simulator presents Kalshi's market). */
const VENUE_NAMES = Object.keys(SERIES_PREFIXES) as RealVenueName[]

export const KalshiRefsSchema = Type.Object(
  {
    market_ticker: Type.String({ description: 'Kalshi market ticker (`GET /markets/{ticker}`, orders).' }),
    event_ticker: Type.Union([Type.String(), Type.Null()], {
      description: 'Kalshi event ticker; null when the venue did not give one.',
    }),
  },
  {
    $id: 'KalshiRefs',
    additionalProperties: false,
    description: 'What Kalshi’s own client needs to trade the contest.',
  },
)

export const PolymarketRefsSchema = Type.Object(
  {
    slug: Type.String({ description: 'Gamma event slug (equals the contest ticker).' }),
    condition_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The market’s condition id (0x…, 32 bytes); null when Gamma did not give one.',
    }),
    up_token_id: Type.String({ description: 'CLOB token id of the outcome labelled Up.' }),
    down_token_id: Type.String({ description: 'CLOB token id of the outcome labelled Down.' }),
  },
  {
    $id: 'PolymarketRefs',
    additionalProperties: false,
    description:
      'What Polymarket’s CLOB client needs to trade the contest. The token ids are matched to the outcomes by their labels (Up, Down), never by their order in Gamma’s arrays.',
  },
)

/** The two members a contest gains, each always sent (null when unknown), as the other nullable fields. */
export const contestVenueMembers = {
  venue: Type.Unsafe<RealVenueName | null>({
    anyOf: [{ type: 'string', enum: [...VENUE_NAMES] }, { type: 'null' }],
    description:
      'The venue the contest trades on. The simulator presents Kalshi’s market, so its contests say kalshi. Null only on a contest stored before the venue was recorded whose series names no venue.',
  }),
  venue_refs: Type.Unsafe({
    anyOf: [Type.Ref('KalshiRefs'), Type.Ref('PolymarketRefs'), { type: 'null' }],
    description:
      'The venue’s own identifiers of the contest: KalshiRefs when venue is kalshi, PolymarketRefs when polymarket. Null on contests stored before the references were recorded.',
  }),
}
