// The tape format (decisions §12): UTF-8 NDJSON, a header line, then records with `t` (Unix ms,
// never decreasing) and `k` (the kind). Pure validation of one parsed line at a time; reading and
// writing files is tape-reader.ts and tape-writer.ts. Later versions add kinds and fields and never
// change them, so an unknown kind is skipped and unknown fields are ignored.

export const TAPE_VERSION = 1

/** The header's `grain` for a tape built from one-minute history (absent: recorded at full grain). */
export const MINUTE_GRAIN = '1m'

export type TapeHeader = {
  tape: typeof TAPE_VERSION
  venue: string
  series: string[]
  sources: string[]
  /** RFC 3339 */
  from: string
  to: string
  origin: string
  /**
   * `'1m'` on a tape built from one-minute history (decisions §15, minute-grain.ts): what the grain
   * cannot honour is stated in docs/history-import.md. Absent: recorded at full grain.
   */
  grain?: typeof MINUTE_GRAIN
}

/** A spot source's latest price as received at `t`: a bid and ask, or `px` for a trade-only source. */
export type SpotRecord = {
  t: number
  k: 'spot'
  src: string
  bid?: number
  ask?: number
  px?: number
  /** the exchange's own timestamp, Unix ms */
  xt?: number
}
/** The venue's market object exactly as its REST API returned it. */
export type MarketRecord = { t: number; k: 'market'; m: unknown }
/**
 * The venue's order-book response body exactly as returned. `token` names the book where a market
 * has one per outcome (Polymarket: the CLOB token id of the side; absent on Kalshi's single book).
 * `st: 404`: the venue answered that the token has no book (Polymarket's new or settling token), `ob`
 * then null — an answer, which a replay reads as that side having no ask, as live did.
 */
export type BookRecord = { t: number; k: 'book'; ticker: string; token?: string; ob: unknown; st?: 404 }
/** The venue's exchange-status body. */
export type ExchangeRecord = { t: number; k: 'exchange'; status: unknown }
/** A settlement-index print (a keyed Kalshi WebSocket), received at `t`; `xt` is the index's own time. */
export type IndexRecord = { t: number; k: 'index'; id: string; v: number; xt?: number }
/**
 * A spot source's one-minute closes as its REST history answered at `t` (the warm-up a live feed
 * loads at start): `c` is `[minute start (Unix ms), close]` pairs. They fill only minutes no live
 * price reached, exactly as live. An addition to the kinds of decisions §12: a reader that does not
 * know it skips it, and then lacks only that warm-up.
 */
export type ClosesRecord = { t: number; k: 'closes'; src: string; c: [number, number][] }

export type TapeRecord = SpotRecord | MarketRecord | BookRecord | ExchangeRecord | IndexRecord | ClosesRecord
export type TapeKind = TapeRecord['k']

/** What is wrong with a line, in words that follow "line N: ". */
export type LineProblem = { problem: string }

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isStringList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== '')
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
const isInstant = (v: unknown): v is string =>
  typeof v === 'string' && RFC3339.test(v) && !Number.isNaN(Date.parse(v))

export function isLineProblem(v: unknown): v is LineProblem {
  return isRecord(v) && typeof v.problem === 'string' && Object.keys(v).length === 1
}

/** The first line of a tape. */
export function parseHeader(value: unknown): TapeHeader | LineProblem {
  if (!isRecord(value) || !('tape' in value))
    return { problem: 'the first line is not a tape header (no "tape" field)' }
  if (value.tape !== TAPE_VERSION)
    return {
      problem: `unsupported tape version ${JSON.stringify(value.tape)} (this program reads ${TAPE_VERSION})`,
    }
  if (typeof value.venue !== 'string' || value.venue === '')
    return { problem: 'header field "venue" is missing' }
  if (!isStringList(value.series) || value.series.length === 0)
    return { problem: 'header field "series" must be a non-empty list of names' }
  if (!isStringList(value.sources)) return { problem: 'header field "sources" must be a list of names' }
  if (!isInstant(value.from)) return { problem: 'header field "from" must be an RFC 3339 date-time' }
  if (!isInstant(value.to)) return { problem: 'header field "to" must be an RFC 3339 date-time' }
  const origin = value.origin ?? ''
  if (typeof origin !== 'string') return { problem: 'header field "origin" must be text' }
  if (value.grain !== undefined && value.grain !== MINUTE_GRAIN)
    return {
      problem: `unsupported grain ${JSON.stringify(value.grain)} (this program reads "${MINUTE_GRAIN}" or none)`,
    }
  return {
    tape: TAPE_VERSION,
    venue: value.venue,
    series: value.series,
    sources: value.sources,
    from: value.from,
    to: value.to,
    origin,
    ...(value.grain === undefined ? {} : { grain: MINUTE_GRAIN }),
  }
}

/**
 * One record line: the record, null for a kind this version does not know (skipped), or what is
 * wrong with it. Field checks stop at the tape's own fields: the venue bodies inside `m`, `ob` and
 * `status` are the adapter's to judge, exactly as live.
 */
export function parseRecord(value: unknown): TapeRecord | null | LineProblem {
  if (!isRecord(value)) return { problem: 'a record must be a JSON object' }
  const { t, k } = value
  if (typeof t !== 'number' || !Number.isSafeInteger(t))
    return { problem: '"t" must be an integer (Unix ms)' }
  if (typeof k !== 'string') return { problem: '"k" (the record kind) is missing' }
  switch (k) {
    case 'spot': {
      const { src, bid, ask, px, xt } = value
      if (typeof src !== 'string' || src === '') return { problem: 'spot record without "src"' }
      if (xt !== undefined && !isFiniteNumber(xt)) return { problem: 'spot "xt" must be a number (Unix ms)' }
      const withXt = xt === undefined ? {} : { xt }
      if (bid !== undefined || ask !== undefined) {
        // a crossed pair (bid over ask) is kept: the live feed takes it (it happens for an instant on
        // busy feeds) and records it, and a replay reads what live read
        if (!isFiniteNumber(bid) || !isFiniteNumber(ask) || bid <= 0 || ask <= 0)
          return { problem: 'spot "bid" and "ask" must be positive numbers' }
        return { t, k, src, bid, ask, ...withXt }
      }
      if (!isFiniteNumber(px) || px <= 0) return { problem: 'spot record needs "bid" and "ask", or "px"' }
      return { t, k, src, px, ...withXt }
    }
    case 'market':
      if (!('m' in value)) return { problem: 'market record without "m"' }
      return { t, k, m: value.m }
    case 'book': {
      if (typeof value.ticker !== 'string' || value.ticker === '')
        return { problem: 'book record without "ticker"' }
      if (!('ob' in value)) return { problem: 'book record without "ob"' }
      if (value.st !== undefined && value.st !== 404)
        return { problem: 'book "st" must be 404 (the venue answered "no book"), or absent' }
      const noBook = value.st === 404 ? { st: 404 as const } : {}
      // only a Polymarket token's /book answers 404 and is recorded so: without the token no side
      // could be matched, and the replay would treat the request as timed out without a word
      if (value.st === 404 && value.token === undefined)
        return { problem: 'book "st": 404 is a token\'s "no book" answer: it needs "token"' }
      if (value.token === undefined) return { t, k, ticker: value.ticker, ob: value.ob, ...noBook }
      if (typeof value.token !== 'string' || value.token === '')
        return { problem: 'book "token" must be a non-empty string' }
      return { t, k, ticker: value.ticker, token: value.token, ob: value.ob, ...noBook }
    }
    case 'exchange':
      if (!('status' in value)) return { problem: 'exchange record without "status"' }
      return { t, k, status: value.status }
    case 'index':
      if (typeof value.id !== 'string' || !isFiniteNumber(value.v))
        return { problem: 'index record needs "id" (text) and "v" (a number)' }
      if (value.xt !== undefined && !isFiniteNumber(value.xt))
        return { problem: 'index "xt" must be a number (Unix ms)' }
      return { t, k, id: value.id, v: value.v, ...(value.xt === undefined ? {} : { xt: value.xt }) }
    case 'closes': {
      const { src, c } = value
      if (typeof src !== 'string' || src === '') return { problem: 'closes record without "src"' }
      if (
        !Array.isArray(c) ||
        !c.every(
          (p) => Array.isArray(p) && p.length === 2 && Number.isSafeInteger(p[0]) && isFiniteNumber(p[1]),
        )
      )
        return { problem: 'closes "c" must be a list of [minute start in Unix ms, close] pairs' }
      return { t, k, src, c: c as [number, number][] }
    }
    default:
      return null
  }
}
