// Generated from the Contest Signals OpenAPI document (docs/openapi.json, the served document) by
// clients/typescript/scripts/generate-types.ts: do not edit. Regenerate with `npm run generate`.

/** What Kalshi’s own client needs to trade the contest. */
export type KalshiRefs = {
  /** Kalshi market ticker (`GET /markets/{ticker}`, orders). */
  market_ticker: string
  /** Kalshi event ticker; null when the venue did not give one. */
  event_ticker: string | null
}

/** What Polymarket’s CLOB client needs to trade the contest. The token ids are matched to the outcomes by their labels (Up, Down), never by their order in Gamma’s arrays. */
export type PolymarketRefs = {
  /** Gamma event slug (equals the contest ticker). */
  slug: string
  /** The market’s condition id (0x…, 32 bytes); null when Gamma did not give one. */
  condition_id: string | null
  /** CLOB token id of the outcome labelled Up. */
  up_token_id: string
  /** CLOB token id of the outcome labelled Down. */
  down_token_id: string
}

/** A model signal raised on a contest. */
export type Signal = {
  /** Ticker of the contest the signal belongs to. */
  ticker: string
  /** When the signal was raised: RFC 3339 in UTC with milliseconds. */
  raised_at: string
  side: "up" | "down"
  /** Model probability on `side`, 0–100. */
  confidence: number
  /** Venue quote for `side` on the 0–100 cent scale. */
  entry_price_cents: number
  /** confidence − entry_price_cents, in probability points. */
  edge_cents: number
  /** pending while the contest is not settled. */
  outcome: "pending" | "win" | "loss" | "void"
  /** Tag of the model that produced the reading; null on older readings. */
  model_version: string | null
}

/** A prediction-market contest with its signals. */
export type Contest = {
  /** Full contest ticker. Opaque: take it from responses whole. */
  ticker: string
  state: "live" | "expired" | "settled"
  window: {
    /** RFC 3339 in UTC. */
    opens_at: string
    /** RFC 3339 in UTC; the settlement time of a 15-minute round. */
    expires_at: string
  }
  /** Strike of the underlying in USD; null until the venue sets it. */
  strike_price_dollars: number | null
  /** null until settled, and on a void contest. */
  settled_side: "up" | "down" | null
  /** Oracle expiration value in USD once settled; null while live, or when the oracle did not report it. */
  settled_price_dollars: number | null
  /** The venue the contest trades on. The simulator presents Kalshi’s market, so its contests say kalshi. Null only on a contest stored before the venue was recorded whose series names no venue. */
  venue: "kalshi" | "polymarket" | null
  /** The venue’s own identifiers of the contest: KalshiRefs when venue is kalshi, PolymarketRefs when polymarket. Null on contests stored before the references were recorded. */
  venue_refs: KalshiRefs | PolymarketRefs | null
  /** All signals of the contest, oldest first. */
  signals: Signal[]
}

export type ContestList = {
  /** Settled contests, newest first. */
  contests: Contest[]
}

/** The new signal and a snapshot of its contest including it. */
export type SignalEmittedPayload = {
  signal: Signal
  contest: Contest
}

/** RFC 9457 problem details. */
export type Problem = {
  /** Identifies the problem; resolves to a human page. */
  type: string
  /** Short summary, the same for every occurrence of the type. */
  title: string
  /** The HTTP status code. */
  status: number
  /** What went wrong this time. */
  detail: string
}

/** RFC 9457 problem details naming each invalid parameter. */
export type InvalidParameterProblem = {
  /** Identifies the problem; resolves to a human page. */
  type: string
  /** Short summary, the same for every occurrence of the type. */
  title: string
  /** The HTTP status code. */
  status: number
  /** What went wrong this time. */
  detail: string
  invalid_params: Array<{
    /** The parameter. */
    name: string
    /** Why it was refused. */
    reason: string
  }>
}

export type Health = {
  status: "ok" | "degraded" | "unavailable"
  version: string
  /** Server time, RFC 3339 in UTC. */
  time: string
  checks: {
    store: "ok" | "degraded" | "corrupt" | "unavailable"
    /** stale when no engine has written for 2 minutes. */
    engine: "ok" | "stale" | "unknown"
    /** Present when the shared rate-limit store is unreachable. */
    rate_limit?: "degraded"
    /** Present when not ok: unreachable when the venue has not answered for over a minute outside a pause it scheduled; paused while the venue has paused trading (status stays ok when the pause is one the venue scheduled, such as its weekly maintenance); malformed when every order book of the last 3 minutes failed to parse. */
    venue?: "unreachable" | "paused" | "malformed"
    /** Present when the service follows several venues (decisions §14): each venue by name (`kalshi`, `polymarket`) with its own check, ok included. `venue` is then the venue check that says most (an outage or malformed quotes before a scheduled pause), and the status is degraded when any venue degrades it. */
    venues?: Record<string, "ok" | "paused" | "unreachable" | "malformed">
    /** Present when no spot price source has answered for over a minute. */
    spot?: "unreachable"
    /** Present when the engine follows the settlement index itself (BRTI, with a Kalshi key): ok while its prints are fresh and are the model’s spot; refused when the venue said at start that the account lacks the CF Benchmarks entitlement (a subscribe ack does not prove it); stale when no fresh print has come. Without the index the exchange median is the spot, so this never changes the status. */
    index?: "ok" | "stale" | "refused"
  }
}

/** The parsed `data` of each stream event, by event name. */
export type StreamEventData = {
  "contest.opened": Contest
  "signal.emitted": SignalEmittedPayload
  "contest.settled": Contest
}

/** Each JSON operation by operationId: its path template, parameters (path and query) and 200 body. */
export type Operations = {
  /** The live contest of a series */
  getActiveContest: {
    path: "/v1/contests/active"
    parameters: {
      /** Series prefix, exact and case-sensitive (not a string-prefix match), 1–128 characters. A full ticker also resolves while that round is live. Must not be repeated. */
      series: string
    }
    response: Contest
  }
  /** One contest by its full ticker */
  getContest: {
    path: "/v1/contests/{ticker}"
    parameters: {
      /** Full ticker including its trailing suffix, opaque. A truncated ticker returns 404, and so does one over 128 characters: no such contest can exist (it is not a malformed request). */
      ticker: string
    }
    response: Contest
  }
  /** Settled contests of a series, newest first */
  listSettledContests: {
    path: "/v1/contests"
    parameters: {
      /** Series prefix, exact and case-sensitive (not a string-prefix match), 1–128 characters. Must not be repeated. */
      series: string
      /** Most contests returned, 1–100, written in decimal digits only. Must not be repeated. */
      limit?: number
      /** Only contests whose window.expires_at is at or after this instant (inclusive). RFC 3339 date-time with an offset, such as 2026-11-22T14:15:00Z (write + as %2B). Must not be repeated. */
      since?: string
      /** Only contests whose window.expires_at is at or before this instant (inclusive). To page, pass the oldest expires_at received and drop the repeated first row. Must not be earlier than since. RFC 3339 date-time with an offset, such as 2026-11-22T14:15:00Z (write + as %2B). Must not be repeated. */
      before?: string
    }
    response: ContestList
  }
  /** Health check */
  getHealth: {
    path: "/v1/health"
    parameters: Record<string, never>
    response: Health
  }
  /** This OpenAPI 3.1.0 document */
  getOpenApiDocument: {
    path: "/v1/openapi.json"
    parameters: Record<string, never>
    response: Record<string, unknown>
  }
}
