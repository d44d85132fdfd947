import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  ConfigError,
  loadConfig,
  seriesOfVenue,
  simulatorServeProblems,
  usesSimulator,
  venueOfConfiguredSeries,
} from './config.ts'

describe('loadConfig', () => {
  it('gives the defaults of decisions §2 for an empty environment', () => {
    const c = loadConfig({})
    assert.equal(c.port, 8080)
    assert.equal(c.host, '127.0.0.1')
    assert.equal(c.databaseUrl, 'sqlite:./data/contest-signals.db')
    assert.equal(c.redisUrl, null)
    assert.equal(c.publicBaseUrl, 'http://127.0.0.1:8080')
    assert.deepEqual(c.series, ['KXBTC15M'])
    assert.deepEqual(c.venues, ['sim'])
    assert.ok(usesSimulator(c))
    assert.equal(c.simSpeed, 1)
    assert.equal(c.simBackfillDays, 7)
    assert.deepEqual(c.trustProxy, [])
    assert.equal(c.corsOrigins, '*')
    assert.equal(c.rateLimitBurst, 20)
    assert.equal(c.rateLimitPerSec, 1)
    assert.equal(c.streamHeartbeatS, 15)
    assert.equal(c.eventRetentionHours, 48)
    assert.equal(c.logLevel, 'info')
    assert.equal(c.bootstrapKey, true)
    // unset: a store's timeline keeps its own seed and settings (src/main/sim-timeline.ts)
    assert.equal(c.simSeed, null)
    assert.equal(c.simParams, null)
  })

  it('returns a frozen object', () => {
    const c = loadConfig({})
    assert.ok(Object.isFrozen(c))
    assert.ok(Object.isFrozen(c.series))
  })

  it('reads every documented variable', () => {
    const c = loadConfig({
      PORT: '9090',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db/x',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PUBLIC_BASE_URL: 'https://signals.example.com/',
      SERIES: 'KXBTC15M, KXETH15M',
      SIM_SPEED: '60',
      SIM_SEED: '42',
      SIM_BACKFILL_DAYS: '0',
      SIM_START: '2026-11-23T12:00:00-05:00',
      TRUST_PROXY: '10.0.0.0/8, ::1',
      CORS_ORIGINS: 'https://a.example, https://b.example',
      RATE_LIMIT_BURST: '5',
      RATE_LIMIT_PER_SEC: '0.5',
      STREAM_HEARTBEAT_S: '2',
      EVENT_RETENTION_HOURS: '1',
      LOG_LEVEL: 'warn',
      BOOTSTRAP_KEY: 'off',
    })
    assert.equal(c.port, 9090)
    assert.equal(c.publicBaseUrl, 'https://signals.example.com')
    assert.deepEqual(c.series, ['KXBTC15M', 'KXETH15M'])
    assert.equal(c.simSpeed, 60)
    assert.equal(c.simSeed, 42)
    assert.equal(loadConfig({ SIM_PARAMS: 'ewma' }).simParams?.crowd.volEstimator, 'ewma')
    assert.equal(loadConfig({ SIM_PARAMS: 'informed' }).simParams?.crowd.volEstimator, 'true')
    assert.equal(c.simBackfillDays, 0)
    assert.equal(c.simStart, Date.parse('2026-11-23T17:00:00Z'))
    assert.deepEqual(c.trustProxy, ['10.0.0.0/8', '::1'])
    assert.deepEqual(c.corsOrigins, ['https://a.example', 'https://b.example'])
    // written as a browser sends its Origin, or it would never match one
    assert.deepEqual(
      loadConfig({ CORS_ORIGINS: 'https://A.example/, HTTPS://b.example:443, http://c.example:8080/' })
        .corsOrigins,
      ['https://a.example', 'https://b.example', 'http://c.example:8080'],
    )
    assert.equal(c.rateLimitPerSec, 0.5)
    assert.equal(c.bootstrapKey, false)
  })

  it('takes SIM_START only as an RFC 3339 instant with its offset, and now when unset', () => {
    assert.equal(loadConfig({}).simStart, null)
    assert.equal(loadConfig({ SIM_START: '' }).simStart, null)
    for (const bad of ['2026-11-23', '2026-11-23T17:00:00', 'monday', '2026-13-40T99:00:00Z'])
      assert.throws(() => loadConfig({ SIM_START: bad }), /SIM_START=.* is not an RFC 3339 instant/)
  })

  it('gives the real-venue defaults of decisions §8', () => {
    const c = loadConfig({})
    assert.equal(c.kalshiBaseUrl, 'https://external-api.kalshi.com/trade-api/v2')
    assert.equal(c.kalshiPollS, 5)
    assert.equal(c.kalshiKeyId, null)
    assert.equal(c.kalshiPrivateKeyFile, null)
    assert.deepEqual(c.priceFeeds, ['coinbase', 'kraken', 'bitstamp'])
    assert.deepEqual(c.feedUrls.coinbase, {
      ws: 'wss://ws-feed.exchange.coinbase.com',
      rest: 'https://api.exchange.coinbase.com',
    })
    assert.deepEqual(c.feedUrls.kraken, { ws: 'wss://ws.kraken.com/v2', rest: 'https://api.kraken.com' })
    assert.deepEqual(c.feedUrls.bitstamp, { ws: 'wss://ws.bitstamp.net', rest: 'https://www.bitstamp.net' })
    assert.equal(c.spotMaxAgeS, 10)
    assert.equal(c.recordDir, null)
    assert.equal(c.recordKeepDays, 92)
  })

  it('reads every real-venue variable', () => {
    const c = loadConfig({
      VENUE: 'kalshi',
      KALSHI_BASE_URL: 'https://external-api.demo.kalshi.co/trade-api/v2/',
      KALSHI_POLL_S: '2',
      KALSHI_KEY_ID: 'key-1',
      KALSHI_PRIVATE_KEY_FILE: '/etc/kalshi.pem',
      PRICE_FEEDS: 'kraken, Coinbase',
      COINBASE_WS_URL: 'ws://127.0.0.1:9001',
      COINBASE_REST_URL: 'http://127.0.0.1:9001/',
      KRAKEN_WS_URL: 'ws://127.0.0.1:9002/v2',
      KRAKEN_REST_URL: 'http://127.0.0.1:9002',
      BITSTAMP_WS_URL: 'ws://127.0.0.1:9003',
      BITSTAMP_REST_URL: 'http://127.0.0.1:9003',
      SPOT_MAX_AGE_S: '3',
      RECORD_DIR: '/var/lib/cs/tapes',
      RECORD_KEEP_DAYS: '7',
    })
    assert.equal(c.recordDir, '/var/lib/cs/tapes')
    assert.equal(c.recordKeepDays, 7)
    assert.deepEqual(c.venues, ['kalshi'])
    assert.equal(c.kalshiBaseUrl, 'https://external-api.demo.kalshi.co/trade-api/v2')
    assert.equal(c.kalshiPollS, 2)
    assert.equal(c.kalshiKeyId, 'key-1')
    assert.equal(c.kalshiPrivateKeyFile, '/etc/kalshi.pem')
    assert.deepEqual(c.priceFeeds, ['kraken', 'coinbase'])
    assert.deepEqual(c.feedUrls.coinbase, { ws: 'ws://127.0.0.1:9001', rest: 'http://127.0.0.1:9001' })
    assert.deepEqual(c.feedUrls.kraken, { ws: 'ws://127.0.0.1:9002/v2', rest: 'http://127.0.0.1:9002' })
    assert.equal(c.spotMaxAgeS, 3)
  })

  it('reads the Polymarket variables of decisions §14, with their defaults', () => {
    const d = loadConfig({})
    assert.equal(d.polymarketGammaUrl, 'https://gamma-api.polymarket.com')
    assert.equal(d.polymarketClobUrl, 'https://clob.polymarket.com')
    assert.equal(d.polymarketPollS, 5)
    const c = loadConfig({
      VENUE: 'polymarket',
      SERIES: 'btc-updown-15m',
      POLYMARKET_GAMMA_URL: 'http://127.0.0.1:9100/gamma/',
      POLYMARKET_CLOB_URL: 'http://127.0.0.1:9100/clob',
      POLYMARKET_POLL_S: '2',
    })
    assert.deepEqual(c.venues, ['polymarket'])
    assert.deepEqual(c.series, ['btc-updown-15m'])
    assert.equal(c.polymarketGammaUrl, 'http://127.0.0.1:9100/gamma')
    assert.equal(c.polymarketClobUrl, 'http://127.0.0.1:9100/clob')
    assert.equal(c.polymarketPollS, 2)
  })

  it('derives PUBLIC_BASE_URL from HOST and PORT, https when TLS files are set', () => {
    const c = loadConfig({ HOST: '::1', PORT: '8443', TLS_CERT_FILE: 'c.pem', TLS_KEY_FILE: 'k.pem' })
    assert.equal(c.publicBaseUrl, 'https://[::1]:8443')
  })

  it('names localhost in the derived PUBLIC_BASE_URL when HOST listens on every address', () => {
    for (const host of ['0.0.0.0', '::', '0:0::0'])
      assert.equal(loadConfig({ HOST: host }).publicBaseUrl, 'http://localhost:8080', host)
    for (const host of ['0.0.0.1', '::1'])
      assert.notEqual(loadConfig({ HOST: host }).publicBaseUrl, 'http://localhost:8080', host)
    assert.equal(
      loadConfig({ HOST: '0.0.0.0', PUBLIC_BASE_URL: 'https://signals.example' }).publicBaseUrl,
      'https://signals.example',
    )
  })

  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL/],
    [{ SIM_SPEED: '0' }, /SIM_SPEED/],
    [{ SIM_SPEED: 'fast' }, /SIM_SPEED/],
    [{ SIM_SEED: '-1' }, /SIM_SEED="-1" is not a whole number of decimal digits \(0 or more\)/],
    [{ SIM_SEED: '9'.repeat(20) }, /SIM_SEED="9{20}" is too large: at most 15 digits/],
    [{ SIM_PARAMS: 'nonesuch' }, /SIM_PARAMS: no preset "nonesuch"/],
    [{ SIM_PARAMS: 'crowd.gamma=high' }, /SIM_PARAMS: crowd.gamma must be a number/],
    [{ SERIES: 'A,,B' }, /SERIES/],
    [{ SERIES: 'A,A' }, /SERIES/],
    [{ VENUE: 'nasdaq' }, /VENUE/],
    [{ TRUST_PROXY: 'not-an-ip' }, /TRUST_PROXY/],
    [{ CORS_ORIGINS: 'example.com' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: ',,,' }, /^CORS_ORIGINS=",,," names no origin/],
    [
      { CORS_ORIGINS: 'https://a.example/app' },
      /^CORS_ORIGINS entry "https:\/\/a\.example\/app" is no origin/,
    ],
    [
      { CORS_ORIGINS: 'https://a.example?x=1' },
      /^CORS_ORIGINS entry "https:\/\/a\.example\?x=1" is no origin/,
    ],
    [{ CORS_ORIGINS: 'https://u:p@a.example' }, /is no origin/],
    [{ TLS_CERT_FILE: 'c.pem' }, /TLS_CERT_FILE and TLS_KEY_FILE/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ BOOTSTRAP_KEY: 'maybe' }, /BOOTSTRAP_KEY/],
    [{ RATE_LIMIT_BURST: '0' }, /RATE_LIMIT_BURST/],
    [{ KALSHI_BASE_URL: 'external-api.kalshi.com' }, /KALSHI_BASE_URL/],
    [{ KALSHI_POLL_S: '0' }, /KALSHI_POLL_S/],
    [{ KALSHI_KEY_ID: 'k' }, /KALSHI_KEY_ID and KALSHI_PRIVATE_KEY_FILE/],
    [{ PRICE_FEEDS: 'coinbase,binance' }, /PRICE_FEEDS/],
    [{ PRICE_FEEDS: 'kraken,kraken' }, /PRICE_FEEDS/],
    [{ PRICE_FEEDS: ',' }, /PRICE_FEEDS/],
    [{ COINBASE_WS_URL: 'https://ws-feed.exchange.coinbase.com' }, /COINBASE_WS_URL/],
    [{ KRAKEN_REST_URL: 'wss://api.kraken.com' }, /KRAKEN_REST_URL/],
    [{ BITSTAMP_WS_URL: 'nope' }, /BITSTAMP_WS_URL/],
    [{ SPOT_MAX_AGE_S: '0' }, /SPOT_MAX_AGE_S/],
    [{ RECORD_DIR: '/tmp/tapes' }, /^RECORD_DIR records a real venue \(VENUE=kalshi or polymarket\)/],
    [{ POLYMARKET_GAMMA_URL: 'gamma-api.polymarket.com' }, /POLYMARKET_GAMMA_URL/],
    [{ POLYMARKET_CLOB_URL: 'ftp://clob.polymarket.com' }, /POLYMARKET_CLOB_URL/],
    [{ POLYMARKET_POLL_S: '0' }, /POLYMARKET_POLL_S/],
    [{ VENUE: 'kalshi', RECORD_KEEP_DAYS: '0' }, /RECORD_KEEP_DAYS/],
    // HOST is checked itself, not blamed on the PUBLIC_BASE_URL derived from it
    [{ HOST: '999.1.1.1' }, /^HOST="999\.1\.1\.1" is not an IP address or host name$/],
    [{ HOST: '1.2.3' }, /^HOST=/],
    [{ HOST: 'bad_host!' }, /^HOST=/],
    // a variable with a real default refuses an empty value instead of silently meaning the default
    [{ SERIES: '' }, /^SERIES is set but empty/],
    [{ SERIES: '  ' }, /^SERIES is set but empty/],
    [{ CORS_ORIGINS: '' }, /^CORS_ORIGINS is set but empty/],
    [{ DATABASE_URL: '' }, /^DATABASE_URL is set but empty/],
    [{ PORT: '' }, /^PORT is set but empty/],
    [{ HOST: '' }, /^HOST is set but empty/],
    [{ VENUE: '' }, /^VENUE is set but empty/],
    [{ PUBLIC_BASE_URL: '' }, /^PUBLIC_BASE_URL is set but empty/],
    [{ LOG_LEVEL: '' }, /^LOG_LEVEL is set but empty/],
  ]
  for (const [env, pattern] of bad) {
    it(`names the variable when ${JSON.stringify(env)} is wrong`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && pattern.test(err.message),
      )
    })
  }

  it('names HOST alone when HOST is wrong', () => {
    assert.throws(
      () => loadConfig({ HOST: '999.1.1.1' }),
      (err: unknown) => err instanceof ConfigError && err.problems.length === 1,
    )
  })

  it('accepts host names, IPv4 and IPv6 listen addresses', () => {
    for (const host of ['0.0.0.0', '::', '::1', 'localhost', 'api-1.internal.example.com']) {
      assert.equal(loadConfig({ HOST: host }).host, host)
    }
  })

  it('reads an empty value as unset where the default is unset or random', () => {
    const c = loadConfig({
      REDIS_URL: '',
      TRUST_PROXY: '',
      TLS_CERT_FILE: '',
      TLS_KEY_FILE: ' ',
      KALSHI_KEY_ID: '',
      KALSHI_PRIVATE_KEY_FILE: '',
      METRICS_PORT: '',
      SIM_SEED: '',
      RECORD_DIR: '',
    })
    assert.equal(c.recordDir, null)
    assert.equal(c.redisUrl, null)
    assert.deepEqual(c.trustProxy, [])
    assert.equal(c.tlsCertFile, null)
    assert.equal(c.metricsPort, null)
  })

  describe('VENUE as a list, each series on one venue (decisions §14)', () => {
    const fails = (env: Record<string, string>, pattern: RegExp) =>
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.problems.some((p) => pattern.test(p)),
      )

    it('reads several venues and routes each series to the one its prefix names', () => {
      const c = loadConfig({ VENUE: 'kalshi, Polymarket', SERIES: 'KXBTC15M,btc-updown-15m' })
      assert.deepEqual(c.venues, ['kalshi', 'polymarket'])
      assert.ok(Object.isFrozen(c.venues))
      assert.equal(usesSimulator(c), false)
      assert.equal(venueOfConfiguredSeries(c, 'KXBTC15M'), 'kalshi')
      assert.equal(venueOfConfiguredSeries(c, 'btc-updown-15m'), 'polymarket')
      assert.deepEqual(seriesOfVenue(c, 'kalshi'), ['KXBTC15M'])
      assert.deepEqual(seriesOfVenue(c, 'polymarket'), ['btc-updown-15m'])
    })

    it('keeps two series on one venue together, in SERIES order', () => {
      const c = loadConfig({ VENUE: 'kalshi', SERIES: 'KXETH15M,KXBTC15M' })
      assert.deepEqual(seriesOfVenue(c, 'kalshi'), ['KXETH15M', 'KXBTC15M'])
    })

    it('lets the simulator keep any series of its own, alone', () => {
      const c = loadConfig({ VENUE: 'sim', SERIES: 'KXBTC15M,btc-updown-15m,ANY' })
      assert.equal(venueOfConfiguredSeries(c, 'btc-updown-15m'), 'sim')
      assert.deepEqual(seriesOfVenue(c, 'sim'), ['KXBTC15M', 'btc-updown-15m', 'ANY'])
    })

    it('has the engine refuse to simulate a Polymarket series as a Kalshi market', () => {
      const c = loadConfig({ VENUE: 'sim', SERIES: 'KXBTC15M,btc-updown-15m' })
      assert.deepEqual(
        simulatorServeProblems(c).map((p) => p.split(',')[0]),
        ['SERIES "btc-updown-15m" is a polymarket series'],
      )
      assert.deepEqual(simulatorServeProblems(loadConfig({ VENUE: 'sim', SERIES: 'KXBTC15M,ANY' })), [])
      const real = loadConfig({ VENUE: 'kalshi,polymarket', SERIES: 'KXBTC15M,btc-updown-15m' })
      assert.deepEqual(simulatorServeProblems(real), [])
    })

    it('refuses an unknown name, a name twice, and the simulator beside a real venue', () => {
      fails(
        { VENUE: 'kalshi,nasdaq' },
        /^VENUE="kalshi,nasdaq": "nasdaq" is not a known venue \(known: sim, kalshi, polymarket\)$/,
      )
      fails({ VENUE: 'kalshi,' }, /"" is not a known venue/)
      fails({ VENUE: 'kalshi,kalshi' }, /^VENUE="kalshi,kalshi" names a venue twice$/)
      fails({ VENUE: 'sim,kalshi' }, /^VENUE="sim,kalshi": the simulator runs alone/)
    })

    it('refuses a series with no venue, a series of a venue left out, and a venue with no series', () => {
      fails({ VENUE: 'kalshi', SERIES: 'KXBTC15M,ETHUSD' }, /^SERIES "ETHUSD" belongs to no known venue/)
      fails(
        { VENUE: 'kalshi', SERIES: 'KXBTC15M,btc-updown-15m' },
        /^SERIES "btc-updown-15m" is a polymarket series, and VENUE="kalshi" leaves polymarket out$/,
      )
      fails(
        { VENUE: 'kalshi,polymarket', SERIES: 'KXBTC15M' },
        /^VENUE="kalshi,polymarket" includes polymarket, but SERIES names none of its series$/,
      )
      // the default SERIES is Kalshi's: a Polymarket-only deployment must name its series
      fails({ VENUE: 'polymarket' }, /SERIES "KXBTC15M" is a kalshi series/)
    })

    it('refuses RECORD_DIR with several venues: a tape is one venue’s', () => {
      fails(
        { VENUE: 'kalshi,polymarket', SERIES: 'KXBTC15M,btc-updown-15m', RECORD_DIR: '/tmp/t' },
        /^RECORD_DIR records one venue's tape/,
      )
      assert.equal(loadConfig({ VENUE: 'kalshi', RECORD_DIR: '/tmp/t' }).recordDir, '/tmp/t')
    })
  })

  describe('rules across settings', () => {
    const problems = (env: Record<string, string>): readonly string[] => {
      try {
        loadConfig(env)
        return []
      } catch (err) {
        if (err instanceof ConfigError) return err.problems
        throw err
      }
    }

    it('refuses a headers timeout above the request timeout (Node would refuse to listen)', () => {
      assert.deepEqual(problems({ HTTP_HEADERS_TIMEOUT_S: '12', HTTP_REQUEST_TIMEOUT_S: '11' }), [
        'HTTP_HEADERS_TIMEOUT_S must not be greater than HTTP_REQUEST_TIMEOUT_S',
      ])
      assert.equal(
        loadConfig({ HTTP_HEADERS_TIMEOUT_S: '11', HTTP_REQUEST_TIMEOUT_S: '11' }).httpHeadersTimeoutS,
        11,
      )
    })

    it('judges only values their own settings accepted: one mistake, one problem', () => {
      assert.deepEqual(problems({ HTTP_HEADERS_TIMEOUT_S: '600', HTTP_REQUEST_TIMEOUT_S: 'ten' }), [
        'HTTP_REQUEST_TIMEOUT_S="ten" is not a number from 0.1 to 600',
      ])
      // the default series is Kalshi's: judged against a refused SERIES it would blame the wrong venue
      assert.deepEqual(problems({ VENUE: 'polymarket', SERIES: 'btc-updown-15m,' }), [
        'SERIES must be a comma-separated list of distinct series prefixes (letters, digits, . _ -)',
      ])
      assert.deepEqual(problems({ VENUE: 'nasdaq', RECORD_DIR: '/tmp/t' }), [
        'VENUE="nasdaq" is not a known venue (known: sim, kalshi, polymarket)',
      ])
    })

    it('writes the bootstrap key beside the SQLite file, in ./data with PostgreSQL, or where told', () => {
      assert.equal(loadConfig({}).bootstrapKeyFile, 'data/bootstrap-key.txt')
      assert.equal(
        loadConfig({ DATABASE_URL: 'sqlite:/var/lib/cs/signals.db' }).bootstrapKeyFile,
        '/var/lib/cs/bootstrap-key.txt',
      )
      assert.equal(
        loadConfig({ DATABASE_URL: 'postgres://u@db/x' }).bootstrapKeyFile,
        'data/bootstrap-key.txt',
      )
      assert.equal(loadConfig({ BOOTSTRAP_KEY_FILE: '/run/key.txt' }).bootstrapKeyFile, '/run/key.txt')
    })

    it('checks the PUBLIC_BASE_URL derived from a HOST that makes no URL', () => {
      // a host name whose last label is digits is read as an IPv4 address by URL parsers
      assert.deepEqual(problems({ HOST: '1a.2' }), ['PUBLIC_BASE_URL must be an absolute http(s) URL'])
      assert.equal(loadConfig({ HOST: '1a.2', PUBLIC_BASE_URL: 'http://signals.example' }).host, '1a.2')
    })
  })

  it('reports every problem at once', () => {
    assert.throws(
      () => loadConfig({ PORT: 'x', LOG_LEVEL: 'y' }),
      (err: unknown) => err instanceof ConfigError && err.problems.length === 2,
    )
  })
})
