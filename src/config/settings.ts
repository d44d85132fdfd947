// Every setting the program reads, once: its default, its parser (the kind of value and its range),
// one line of doc, and the group it is documented in. `loadConfig` reads exactly these names (a name
// not here is a programming error); docs/configuration.md's settings tables and .env.example are written from
// this table by `npm run settings:docs`, and a test fails when they differ from it. A new setting is
// one row here and its line in loadConfig.

import type { SimParams } from '../feeds/sim/sim-params.ts'
import { parseSimParams } from '../feeds/sim/sim-params-text.ts'
import { MODEL_NAMES } from '../model/models.ts'
import {
  absoluteUrl,
  addressList,
  decimal,
  distinctList,
  distinctNames,
  host,
  httpUrl,
  instant,
  matching,
  oneOf,
  onOff,
  origins,
  type Parser,
  seed,
  text,
  venueList,
  weeklyWindow,
  wholeNumber,
} from './setting-parsers.ts'

export type Setting<T = unknown> = {
  /** the text parsed when the variable is unset; null: none (unset, random or derived, see `shownDefault`) */
  default: string | null
  /** the docs' default when it is not `default` itself: `unset`, `random`, or how it is derived */
  shownDefault?: string
  /**
   * An empty value means unset. Only for settings whose default is "unset" or random, as container
   * and unit files often write them; elsewhere an empty value is surely a mistake (`SERIES=`
   * publishing the default series) and stops the program naming the variable (decisions §2).
   */
  emptyMeansUnset?: true
  parser: Parser<T>
  /** one line, Markdown */
  doc: string
}

export const SPOT_SOURCES = ['coinbase', 'kraken', 'bitstamp'] as const
export type SpotSourceName = (typeof SPOT_SOURCES)[number]
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

const unset = { default: null, shownDefault: 'unset', emptyMeansUnset: true } as const
// SIM_PARAMS: its own parser (sim-params-text.ts), whose one-line problems name the variable
const simParams: Parser<SimParams> = {
  accepts: 'a preset, `name=value,…` or JSON',
  parse: (raw) => {
    const parsed = parseSimParams(raw)
    return typeof parsed === 'string' ? { ok: false, problems: [parsed] } : { ok: true, value: parsed }
  },
}
const aFile = text('file path')
const secondsBetweenPolls = decimal(1, 300)

const SERVICE = {
  PORT: { default: '8080', parser: wholeNumber(0, 65535), doc: 'listen port (`0` picks a free one)' },
  HOST: { default: '127.0.0.1', parser: host, doc: 'listen address (`0.0.0.0` in a container)' },
  DATABASE_URL: {
    default: 'sqlite:./data/contest-signals.db',
    parser: matching([/^sqlite:.+/, /^postgres(ql)?:\/\/.+/], '`sqlite:PATH` or `postgres://…`'),
    doc: 'the store: a SQLite file, or `postgres://user:pass@host:5432/db` (optionally `?schema=NAME`, default `public`)',
  },
  REDIS_URL: {
    ...unset,
    parser: matching([/^rediss?:\/\/.+/], '`redis://…` or `rediss://…`'),
    doc: 'when set, rate-limit buckets are shared by all api replicas in Redis',
  },
  REDIS_PREFIX: {
    default: 'cs:',
    parser: text('text'),
    doc: 'prefix of every Redis key, so deployments sharing a Redis never collide',
  },
  PUBLIC_BASE_URL: {
    default: null,
    shownDefault: '`http://HOST:PORT`',
    parser: httpUrl,
    doc: "the spec's `{base_url}`: problem `type` URIs and the OpenAPI `servers` (`https` with the TLS files; with `PORT=0`, the port taken; with a wildcard `HOST` such as `0.0.0.0`, `localhost`, and the api warns at start: set it to the address clients use)",
  },
  SERIES: {
    default: 'KXBTC15M',
    parser: distinctList(/^[A-Za-z0-9._-]{1,64}$/, 'series prefixes (letters, digits, . _ -)'),
    doc: 'the series the engine publishes; with real venues each belongs to the venue its prefix names (`KX…` Kalshi, `btc-updown-…` Polymarket)',
  },
  VENUE: {
    default: 'sim',
    parser: venueList,
    doc: '`sim` (the built-in simulator, alone), or one or more real venues: `kalshi` (see [Publishing on real markets](venues.md#publishing-on-real-markets-kalshi)), `polymarket` (with `SERIES=btc-updown-15m`: see [Running on Polymarket](venues.md#running-on-polymarket)), `kalshi,polymarket` (see [Several venues at once](venues.md#several-venues-at-once))',
  },
  SIM_SPEED: {
    default: '1',
    parser: decimal(1, 10_000),
    doc: "the simulator's virtual clock runs this many times faster than the wall clock",
  },
  SIM_SEED: {
    default: null,
    shownDefault: 'random, then the store’s',
    emptyMeansUnset: true,
    parser: seed,
    doc: "the simulator's seed: the same seed gives the same prices, quotes, strikes, results and signals (each simulated reading is observed at its minute's boundary, backfilled or live; only a live signal's `raised_at` is when the engine's tick made it, and a minute the engine missed stays missed). A store keeps the seed of its first start: a restart without SIM_SEED continues the same timeline, and another seed on it is refused",
  },
  SIM_PARAMS: {
    default: null,
    shownDefault: 'the `ewma` crowd, then the store’s',
    emptyMeansUnset: true,
    parser: simParams,
    doc: 'the sandbox\'s settings (`src/feeds/sim/README.md`): a crowd preset (`ewma`, `informed`, `ewma-late`, `shrink`, `floor`, `drift`, `wide-stale`, `one-sided`), or `name=value` pairs (`preset=shrink,crowd.lagSeconds=5,crowd.spreadTicks=1..10`), or JSON (`{"crowd":{"bias":"floor"}}`); a value that describes no sandbox (a negative number but `crowd.delta` and `basis.phi`, a reversed range, a chance above 1, a spread under one tick) is refused; the crowd settings it names hold on Polymarket\'s sandbox too, over that venue\'s own; `sim tape` and `evaluate --sim-seed` read it too, so give both the same. A store keeps the settings of its first start, as it keeps SIM_SEED',
  },
  SIM_BACKFILL_DAYS: {
    default: '7',
    parser: wholeNumber(0, 90),
    doc: 'days of settled history generated on a start with no contests in the store (a start after one a stop cut short goes on with it)',
  },
  SIM_START: {
    default: null,
    shownDefault: 'now',
    emptyMeansUnset: true,
    parser: instant,
    doc: 'where a new sandbox timeline begins (e.g. `2026-11-23T17:00:00Z`); ignored once the store holds a timeline. The sandbox pauses trading weekly on Thursdays 03:00–05:00 New York time like the venue, so a demo or a test started then waits up to two hours for its first signal unless it starts elsewhere',
  },
  // the pricing model (decisions §3): v2 by name; its version carries the parameter file's digest
  MODEL: {
    default: 'settle-mean-t-2',
    parser: oneOf(MODEL_NAMES, 'model'),
    doc: 'the pricing model: v2 prices the settlement mean the venue pays on ([`docs/model.md`](model.md)); `gbm-ewma-1` is the first model, kept for comparison',
  },
  READING_MAX_LATE_S: {
    default: '10',
    parser: decimal(1, 59),
    doc: 'a minute whose inputs cannot be had this long after its boundary raises no reading (`late`; decisions §11)',
  },
  TRUST_PROXY: {
    default: '',
    shownDefault: 'empty',
    emptyMeansUnset: true,
    parser: addressList,
    doc: 'proxies whose `X-Forwarded-For` is honoured',
  },
  CORS_ORIGINS: { default: '*', parser: origins, doc: 'allowed browser origins' },
  TLS_CERT_FILE: {
    ...unset,
    parser: aFile,
    doc: 'the certificate (PEM); when both TLS files are set, serve HTTPS directly',
  },
  TLS_KEY_FILE: {
    ...unset,
    parser: aFile,
    doc: "the certificate's private key (PEM); set both TLS files or neither",
  },
  RATE_LIMIT_BURST: {
    default: '20',
    parser: wholeNumber(1, 1_000_000),
    doc: 'the token bucket per client address: its size',
  },
  RATE_LIMIT_PER_SEC: {
    default: '1',
    parser: decimal(0.001, 1_000_000),
    doc: 'the token bucket per client address: tokens added each second',
  },
  STREAM_HEARTBEAT_S: {
    default: '15',
    parser: decimal(0.05, 3600),
    doc: 'seconds between `: keep-alive` comment frames',
  },
  EVENT_RETENTION_HOURS: {
    default: '48',
    parser: decimal(0.01, 24 * 365),
    doc: 'how long the event log is kept for stream resumption (wall-clock hours, also under a fast simulator)',
  },
  LOG_LEVEL: {
    default: 'info',
    parser: oneOf(LOG_LEVELS),
    doc: 'logs are JSON lines on stdout (at `info`, one access line per request)',
  },
  FAST_PATH: {
    default: 'on',
    parser: onOff,
    doc: '`off` answers every request through the framework alone (for debugging; the answers are the same)',
  },
  BOOTSTRAP_KEY: { default: 'on', parser: onOff, doc: '`off` stops `serve` from creating the first key' },
  METRICS_PORT: {
    ...unset,
    parser: wholeNumber(0, 65535),
    doc: 'when set, Prometheus metrics at `http://HOST:METRICS_PORT/metrics`',
  },
  BOOTSTRAP_KEY_FILE: {
    default: null,
    shownDefault: '`bootstrap-key.txt` beside the SQLite file (`./data/` with PostgreSQL)',
    parser: aFile,
    doc: 'where the first start writes the bootstrap key, mode 0600',
  },
  STREAM_MAX_PER_ADDRESS: {
    default: '50',
    parser: wholeNumber(1, 1_000_000),
    doc: 'open streams per client address on one replica; one more is refused with 429 `rate-limited`',
  },
  REDIS_COMMAND_TIMEOUT_MS: {
    default: '50',
    parser: wholeNumber(5, 5000),
    doc: 'bound on each rate-limit step in Redis; a timeout or error opens the circuit (see [Running at scale](scaling.md#running-at-scale))',
  },
  PG_STATEMENT_TIMEOUT_MS: {
    default: '5000',
    parser: wholeNumber(100, 600_000),
    doc: 'PostgreSQL `statement_timeout` of every connection (the client gives up 2 s later if the server says nothing)',
  },
  PG_CONNECT_TIMEOUT_MS: {
    default: '2000',
    parser: wholeNumber(100, 60_000),
    doc: 'opening a PostgreSQL connection, or waiting for a free one in the pool, fails after this: 503, not a hang',
  },
  HTTP_HEADERS_TIMEOUT_S: {
    default: '10',
    parser: decimal(0.1, 600),
    doc: "from a connection's first byte (or its opening) to the end of the request headers; at most `HTTP_REQUEST_TIMEOUT_S`",
  },
  HTTP_REQUEST_TIMEOUT_S: {
    default: '10',
    parser: decimal(0.1, 600),
    doc: "receiving a whole request; also the deadline of every answer but the stream's (503 `unavailable` past it)",
  },
  HTTP_IDLE_TIMEOUT_S: {
    default: '15',
    parser: decimal(0.1, 3600),
    doc: 'a connection with no traffic either way while a request is open (or before its first byte) is closed; streams are exempt',
  },
  HTTP_KEEP_ALIVE_TIMEOUT_S: {
    default: '75',
    parser: decimal(0.1, 3600),
    doc: "an idle kept-alive connection between requests; keep it above your load balancer's idle timeout",
  },
} as const satisfies Record<string, Setting>

// The real venues (decisions §8, §14): each venue's public hosts are overridable for proxies and fixtures.
const KALSHI = {
  KALSHI_BASE_URL: {
    default: 'https://external-api.kalshi.com/trade-api/v2',
    parser: httpUrl,
    doc: "the venue's REST base; the demo environment works the same way",
  },
  KALSHI_POLL_S: {
    default: '5',
    parser: secondsBetweenPolls,
    doc: "seconds between polls of each series' markets",
  },
  KALSHI_KEY_ID: {
    ...unset,
    parser: text('key id'),
    doc: "optional API key id, with `KALSHI_PRIVATE_KEY_FILE` (both or neither): every request is then signed (RSA-PSS), and the venue's WebSocket gives results as they happen and BRTI as the spot; reads work without it",
  },
  KALSHI_PRIVATE_KEY_FILE: { ...unset, parser: aFile, doc: "the API key's RSA private key (PEM)" },
  PRICE_FEEDS: {
    default: 'coinbase,kraken,bitstamp',
    parser: distinctNames(SPOT_SOURCES, 'sources'),
    doc: "the spot sources; the model's spot is the median of the fresh sources' mid prices (at least 2 fresh)",
  },
  COINBASE_WS_URL: {
    default: 'wss://ws-feed.exchange.coinbase.com',
    parser: absoluteUrl(['ws:', 'wss:']),
    doc: 'Coinbase Exchange, its WebSocket',
  },
  COINBASE_REST_URL: {
    default: 'https://api.exchange.coinbase.com',
    parser: absoluteUrl(['http:', 'https:']),
    doc: 'Coinbase Exchange, its REST base',
  },
  KRAKEN_WS_URL: {
    default: 'wss://ws.kraken.com/v2',
    parser: absoluteUrl(['ws:', 'wss:']),
    doc: 'Kraken, its WebSocket v2',
  },
  KRAKEN_REST_URL: {
    default: 'https://api.kraken.com',
    parser: absoluteUrl(['http:', 'https:']),
    doc: 'Kraken, its REST base',
  },
  BITSTAMP_WS_URL: {
    default: 'wss://ws.bitstamp.net',
    parser: absoluteUrl(['ws:', 'wss:']),
    doc: 'Bitstamp, its WebSocket',
  },
  BITSTAMP_REST_URL: {
    default: 'https://www.bitstamp.net',
    parser: absoluteUrl(['http:', 'https:']),
    doc: 'Bitstamp, its REST base',
  },
  SPOT_MAX_AGE_S: {
    default: '10',
    parser: decimal(1, 3600),
    doc: "a source whose last price is older (by the exchange's own time where it sends one) is left out of the median; with fewer than 2 fresh, no reading is raised",
  },
  // tapes (decisions §12): what a real venue's engine saw, one file per UTC day
  RECORD_DIR: {
    ...unset,
    parser: text('directory'),
    doc: 'record what the engine sees as one tape per UTC day in this directory (made if missing): see [Tapes](tapes.md#tapes-record-the-venue-replay-anything)',
  },
  // a quarter: enough recorded contests to fit the model on one period and judge it on a later one
  RECORD_KEEP_DAYS: {
    default: '92',
    parser: wholeNumber(1, 3650),
    doc: 'recorded day tapes older than this many days are removed; a quarter, so `fit:model --tapes` has a period to fit on and a later one to judge',
  },
} as const satisfies Record<string, Setting>

const POLYMARKET = {
  POLYMARKET_GAMMA_URL: {
    default: 'https://gamma-api.polymarket.com',
    parser: httpUrl,
    doc: 'Gamma, for discovery, the price to beat and results; no key',
  },
  POLYMARKET_CLOB_URL: {
    default: 'https://clob.polymarket.com',
    parser: httpUrl,
    doc: "the CLOB, for each outcome token's order book; no key",
  },
  POLYMARKET_POLL_S: {
    default: '5',
    parser: secondsBetweenPolls,
    doc: 'seconds between polls of Gamma for the followed windows',
  },
  POLYMARKET_WEEKLY_RESTART: {
    default: 'tuesday 07:00 5',
    parser: weeklyWindow,
    doc: "the CLOB's weekly matching-engine restart (about 90 s of HTTP 425, then post-only for 2 minutes): no readings in it, health `paused` (scheduled); any minute the CLOB answers 425 is paused too",
  },
} as const satisfies Record<string, Setting>

/** The groups the docs show the settings in: one README table (its markers' name) each. */
export const SETTING_GROUPS = {
  service: { title: 'The service', settings: SERVICE },
  kalshi: {
    title: 'With VENUE=kalshi (the spot feeds and recording serve VENUE=polymarket too)',
    settings: KALSHI,
  },
  polymarket: { title: 'With VENUE=polymarket', settings: POLYMARKET },
} as const satisfies Record<string, { title: string; settings: Record<string, Setting> }>

export type SettingGroupName = keyof typeof SETTING_GROUPS

export const SETTINGS = { ...SERVICE, ...KALSHI, ...POLYMARKET } as const

export type SettingName = keyof typeof SETTINGS

/** A setting's value: its parser's result, or null when it has no default and is unset. */
export type SettingValue<K extends SettingName> = (typeof SETTINGS)[K] extends {
  default: string
  parser: Parser<infer T>
}
  ? T
  : (typeof SETTINGS)[K] extends { parser: Parser<infer T> }
    ? T | null
    : never

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name)
}
