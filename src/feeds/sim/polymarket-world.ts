// The honest sandbox as Polymarket would present it (venue facts §3, decisions §14): the same index,
// exchanges and crowd as the Kalshi view (sim-world.ts), with Polymarket's own rule, bodies and grid.
// The oracle's (Chainlink's) price is the index times a small daily basis; a window resolves Up when
// the oracle's 60 s TWAP ending at its close is at least the one ending at its open (a tie is Up). The
// Gamma event body moves through the venue's lifecycle (listed, live, ended but still shown open,
// resolved about 1–2 min after the end, its price to beat and final price published minutes later);
// the CLOB books are one per outcome token, prices and sizes as strings, levels served worst-first
// (best last) as the venue's guide and live captures show. Nothing here reads model code.

import type { CrowdBook, CrowdContest } from './crowd.ts'
import { type Crowd, createCrowd } from './crowd.ts'
import { createSeededRandom, hashString } from './seeded-random.ts'
import type { SimWorld } from './sim-world.ts'
import { DOLLAR, taperedGrid } from './tick-grid.ts'

const S_ORACLE_BASIS = 501
const S_TIMING = 502
const S_MISSING_FINAL = 503
const S_TOKEN = 504

const DAY_MS = 86_400_000
const WINDOW_MS = 900_000
export const POLYMARKET_SIM_SERIES = 'btc-updown-15m'

export type SimPolymarketWindow = CrowdContest & {
  slug: string
  upToken: string
  downToken: string
  conditionId: string
  /** the oracle's TWAP ending at the open and at the close, USD (full precision, as Gamma shows it) */
  priceToBeat: number
  finalPrice: number
  /** the venue's outcome */
  up: boolean
  resolvedAt: number
  priceToBeatAt: number
  /** null when the venue never publishes it */
  finalPriceAt: number | null
}

export type SimPolymarket = {
  readonly world: SimWorld
  /** the oracle's print (USD) at a Unix second */
  oraclePrice(second: number): number
  /** the oracle's price over the index's at a Unix second (e^basis, one basis per UTC day) */
  oracleFactor(second: number): number
  /** the oracle's TWAP (USD) over the lookback ending at `endMs` (seconds (end − lookback, end]) */
  twap(endMs: number): number
  /** the window opening at `opensAt` (a quarter hour) */
  window(opensAt: number): SimPolymarketWindow
  book(w: SimPolymarketWindow, at: number): CrowdBook
  /** `GET /events/slug/{slug}`'s body at `at` (venue facts §3.2.4–§3.2.6) */
  eventBody(w: SimPolymarketWindow, at: number): Record<string, unknown>
  /** `GET /book?token_id=…`'s body of one side's token at `at` (venue facts §3.4.2) */
  bookBody(w: SimPolymarketWindow, side: 'up' | 'down', at: number): Record<string, unknown>
  /** true once the venue shows everything it will about `w` (resolved, prices published or never coming) */
  complete(w: SimPolymarketWindow, at: number): boolean
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z')
const gammaTime = (ms: number): string => iso(ms).replace('T', ' ').replace('Z', '+00')
/** `0.50` on the 1 ¢ grid, `0.995` on the 0.1 ¢ one, as the CLOB writes its prices */
const decimal = (millionths: number): string =>
  (millionths / 1_000_000).toFixed(millionths % 10_000 === 0 ? 2 : 3)
const size = (hundredths: number): string => String(hundredths / 100)
const digits = (key: string, n: number): string => {
  let out = ''
  for (let i = 0; out.length < n; i++) out += String(hashString(`${key}:${i}`)).padStart(10, '0')
  return `${1 + (hashString(key) % 9)}${out.slice(0, n - 1)}`
}
const hex = (key: string): string => {
  let out = ''
  for (let i = 0; out.length < 64; i++) out += hashString(`${key}:${i}`).toString(16).padStart(8, '0')
  return `0x${out.slice(0, 64)}`
}

const ET_TIME = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hour: 'numeric',
  minute: '2-digit',
  hour12: true,
})
const ET_DATE = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  month: 'long',
  day: 'numeric',
})
const etTime = (ms: number): string => ET_TIME.format(ms).replace(' ', '')
const titleOf = (opensAt: number): string =>
  `Bitcoin Up or Down - ${ET_DATE.format(opensAt)}, ${etTime(opensAt)}-${etTime(opensAt + WINDOW_MS)} ET`

export function createSimPolymarket(world: SimWorld): SimPolymarket {
  const p = world.params.polymarket
  const rnd = createSeededRandom(world.seed)
  const crowd: Crowd = createCrowd(rnd, world.index, taperedGrid(p.fineTickBelow, p.fineTickFrom), {
    ...world.params.crowd,
    ...p.crowd,
  })
  const basisOfDay = (day: number): number => p.oracleBasisDailySd * rnd.normal(S_ORACLE_BASIS, day)
  const oracleFactor = (second: number): number => Math.exp(basisOfDay(Math.floor((second * 1000) / DAY_MS)))
  const oraclePrice = (second: number): number =>
    (world.index.printCents(second) / 100) * oracleFactor(second)
  const twap = (endMs: number): number => {
    const end = Math.floor(endMs / 1000)
    let sum = 0
    for (let s = end - p.twapLookbackSeconds + 1; s <= end; s++) sum += oraclePrice(s)
    return sum / p.twapLookbackSeconds
  }
  const after = (expiresAt: number, [lo, hi]: readonly [number, number], key: number, sub: number): number =>
    expiresAt + 1000 * (lo + Math.floor((hi - lo + 1) * rnd.uniform(S_TIMING, key, sub)))

  const windows = new Map<number, SimPolymarketWindow>()
  const titles = new Map<string, string>()
  const window = (opensAt: number): SimPolymarketWindow => {
    const hit = windows.get(opensAt)
    if (hit) return hit
    const slug = `${POLYMARKET_SIM_SERIES}-${opensAt / 1000}`
    const key = hashString(slug)
    const expiresAt = opensAt + WINDOW_MS
    const priceToBeat = twap(opensAt)
    const finalPrice = twap(expiresAt)
    const priceToBeatAt = after(expiresAt, p.priceToBeatAfterSeconds, key, 1)
    const made: SimPolymarketWindow = {
      slug,
      key,
      opensAt,
      expiresAt,
      // the crowd prices against the index's own mean before the open: it knows the rule, roughly
      strikeCents: world.meanBeforeCents(opensAt),
      upToken: digits(`${world.seed}:${slug}:up:${rnd.uniform(S_TOKEN, key)}`, 77),
      downToken: digits(`${world.seed}:${slug}:down:${rnd.uniform(S_TOKEN, key, 1)}`, 77),
      conditionId: hex(`${world.seed}:${slug}:condition`),
      priceToBeat,
      finalPrice,
      up: finalPrice >= priceToBeat,
      resolvedAt: after(expiresAt, p.resolvedAfterSeconds, key, 0),
      priceToBeatAt,
      finalPriceAt:
        rnd.uniform(S_MISSING_FINAL, key) < p.missingFinalPriceRate
          ? null
          : Math.max(priceToBeatAt, after(expiresAt, p.finalPriceAfterSeconds, key, 2)),
    }
    if (windows.size >= 5_000) windows.delete(windows.keys().next().value as number)
    windows.set(opensAt, made)
    return made
  }

  const book = (w: SimPolymarketWindow, at: number): CrowdBook =>
    at < w.opensAt || at >= w.expiresAt ? { yes: [], no: [] } : crowd.book(w, at)

  // Gamma's snapshot price of Up: the crowd's mid at the start of the minute, to 3 decimals
  const upPrice = (w: SimPolymarketWindow, at: number): number => {
    if (at < w.opensAt) return 0.5
    const minuteStart = w.opensAt + Math.floor((Math.min(at, w.expiresAt - 1) - w.opensAt) / 60_000) * 60_000
    return Math.round(crowd.mid(w, minuteStart) * 1000) / 1000
  }

  return {
    world,
    oraclePrice,
    oracleFactor,
    twap,
    window,
    book,
    complete: (w, at) =>
      at >= w.resolvedAt && at >= w.priceToBeatAt && (w.finalPriceAt === null || at >= w.finalPriceAt),
    eventBody(w, at) {
      const ended = at >= w.expiresAt
      const resolved = at >= w.resolvedAt
      let title = titles.get(w.slug)
      if (title === undefined) {
        title = titleOf(w.opensAt)
        if (titles.size >= 5_000) titles.clear()
        titles.set(w.slug, title)
      }
      const up = upPrice(w, at)
      const prices = resolved
        ? w.up
          ? ['1', '0']
          : ['0', '1']
        : [String(up), String(Number((1 - up).toFixed(3)))]
      const metadata =
        at < w.priceToBeatAt
          ? null
          : {
              priceToBeat: w.priceToBeat,
              ...(w.finalPriceAt !== null && at >= w.finalPriceAt ? { finalPrice: w.finalPrice } : {}),
            }
      const created = iso(w.opensAt - DAY_MS + 161_518)
      const source = 'https://data.chain.link/streams/btc-usd-twap-60s-streams'
      const closedTime = resolved ? { closedTime: gammaTime(w.resolvedAt) } : {}
      const market = {
        id: String(2_000_000 + w.opensAt / WINDOW_MS - 1_900_000),
        question: title,
        conditionId: w.conditionId,
        questionID: hex(`${w.slug}:question`),
        slug: w.slug,
        outcomes: '["Up", "Down"]',
        outcomePrices: JSON.stringify(prices).replace(',', ', '),
        clobTokenIds: JSON.stringify([w.upToken, w.downToken]).replace(',', ', '),
        eventStartTime: iso(w.opensAt),
        startDate: created,
        endDate: iso(w.expiresAt),
        active: true,
        closed: resolved,
        acceptingOrders: !ended,
        enableOrderBook: true,
        ...closedTime,
        umaResolutionStatus: resolved ? 'resolved' : null,
        umaResolutionStatuses: '[]',
        resolutionSource: source,
        cryptoMarketConfigId: 'btc-15m-twap-60',
        cryptoMarketConfig: {
          id: 'btc-15m-twap-60',
          asset: 'btc',
          duration: '15m',
          twapEnabled: true,
          twapLookbackSeconds: p.twapLookbackSeconds,
        },
        orderPriceMinTickSize: 0.01,
        orderMinSize: 5,
        negRisk: false,
        feesEnabled: true,
        feeType: 'crypto_fees_v2',
        feeSchedule: { ...p.feeSchedule },
      }
      return {
        id: String(400_000 + w.opensAt / WINDOW_MS - 1_900_000),
        ticker: w.slug,
        slug: w.slug,
        title,
        description:
          'This market resolves to "Up" if the Chainlink BTC/USD 60-second TWAP at the end of the range ' +
          'is greater than or equal to the one at its beginning; otherwise "Down".',
        resolutionSource: source,
        startDate: created,
        creationDate: created,
        startTime: iso(w.opensAt),
        endDate: iso(w.expiresAt),
        active: true,
        closed: resolved,
        archived: false,
        restricted: true,
        negRisk: false,
        seriesSlug: 'btc-up-or-down-15m',
        series: [{ id: '10192', slug: 'btc-up-or-down-15m', title: 'BTC Up or Down 15m', recurrence: '15m' }],
        eventMetadata: metadata,
        ...closedTime,
        markets: [market],
      }
    },
    bookBody(w, side, at) {
      const b = book(w, at)
      // a bid for Up at q is an ask for Down at 1 − q: each token's book is the other's mirror
      const [own, other] = side === 'up' ? [b.yes, b.no] : [b.no, b.yes]
      const bids = own.map(([q, n]) => ({ price: decimal(q), size: size(n) }))
      const asks = other.map(([q, n]) => ({ price: decimal(DOLLAR - q), size: size(n) }))
      const bestBid = own.at(-1)?.[0] ?? 0
      const fine = bestBid < p.fineTickBelow || bestBid >= p.fineTickFrom
      return {
        market: w.conditionId,
        asset_id: side === 'up' ? w.upToken : w.downToken,
        timestamp: String(at),
        hash: hashString(`${w.slug}:${side}:${JSON.stringify(b)}`)
          .toString(16)
          .padStart(8, '0'),
        bids,
        asks,
        min_order_size: '5',
        tick_size: fine ? '0.001' : '0.01',
        neg_risk: false,
        last_trade_price: decimal(bestBid),
      }
    },
  }
}

// One Polymarket view per world, so the per-window draws and the crowd's memo are shared.
const views = new WeakMap<SimWorld, SimPolymarket>()
export function simPolymarketOf(world: SimWorld): SimPolymarket {
  let view = views.get(world)
  if (!view) {
    view = createSimPolymarket(world)
    views.set(world, view)
  }
  return view
}
