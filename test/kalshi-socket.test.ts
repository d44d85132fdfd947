// The venue's WebSocket with an API key, against the fixture venue over real sockets: the signed
// handshake, the two subscriptions, BRTI as the model's spot while fresh, results before REST shows
// them, and an outage that costs REST nothing (venue facts §1.11, §4.4).
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { describe, it } from 'node:test'
import { withSettlementIndex } from '../src/feeds/kalshi/index-spot.ts'
import { createKalshiSocket, parseSocketFrame, socketUrlFor } from '../src/feeds/kalshi/kalshi-socket.ts'
import { createKalshiVenue } from '../src/feeds/kalshi/kalshi-venue.ts'
import { createRequestSigner } from '../src/feeds/kalshi/request-signing.ts'
import { makeMarket } from './fixtures/kalshi-fixture.ts'
import { MINUTE, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { startSpotWorld } from './support/spot-world.ts'
import { venueRecording } from './support/venue-recording.ts'
import { eventually } from './support/wait.ts'

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString()
const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
const credentials = { keyId: 'a952bcbe-ec3b-4b5b-b8f9-11dae589608c', privateKeyPem }
const quiet = { info() {}, warn() {}, error() {}, debug() {} }
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE

function socketFor(baseUrl: string, key = credentials, events: boolean[] = [], logs: string[] = []) {
  return createKalshiSocket({
    url: socketUrlFor(baseUrl),
    signer: createRequestSigner(key),
    clock: { now: () => Date.now() },
    logger: { ...quiet, warn: (_o: unknown, msg?: string) => void logs.push(msg ?? '') },
    telemetry: { request() {}, retry() {}, socket: (c) => void events.push(c) },
    backoff: { baseMs: 20, capMs: 100 },
  })
}

/**
 * A Kalshi venue with its own socket over the world's fixture, started, once the fixture has its two
 * subscriptions (the world's venue has no socket of its own).
 */
async function startSocketVenue(
  w: Awaited<ReturnType<typeof startKalshiVenueWorld>>,
  socket: ReturnType<typeof socketFor>,
  logger: Parameters<typeof createKalshiVenue>[0]['logger'] = quiet,
) {
  const venue = createKalshiVenue({
    baseUrl: w.kalshi.baseUrl,
    series: ['KXBTC15M'],
    pollMs: 10_000,
    wallClock: { now: () => Date.now() },
    logger,
    credentials,
    socket,
    maxRequestsPerSec: 100,
  })
  await venue.start()
  try {
    await eventually(
      () => w.kalshi.wsCommands.length,
      (n) => n === 2,
    )
  } catch (err) {
    await venue.close()
    throw err
  }
  return venue
}

describe('Kalshi socket › frames and URLs', () => {
  it('derives the socket URL from the REST base', () => {
    assert.equal(
      socketUrlFor('https://external-api.kalshi.com/trade-api/v2'),
      'wss://external-api-ws.kalshi.com/trade-api/ws/v2',
    )
    assert.equal(
      socketUrlFor('https://api.elections.kalshi.com/trade-api/v2'),
      'wss://api.elections.kalshi.com/trade-api/ws/v2',
    )
    assert.equal(socketUrlFor('http://127.0.0.1:8080/trade-api/v2'), 'ws://127.0.0.1:8080/trade-api/ws/v2')
  })

  it('reads the venue’s frames (venue facts §1.11): BRTI parsed twice, lifecycle events, errors', () => {
    const cf = '{"type":"value","id":"BRTI","time":1772486985000,"value":"68431.92"}'
    assert.deepEqual(
      parseSocketFrame(
        JSON.stringify({
          type: 'cfbenchmarks_value',
          sid: 1,
          seq: 4211,
          msg: { index_id: 'BRTI', data: cf },
        }),
      ),
      { kind: 'index', print: { id: 'BRTI', value: 68431.92, at: 1772486985000 } },
    )
    const determined = parseSocketFrame(
      '{"type":"market_lifecycle_v2","sid":13,"seq":103,"msg":{"event_type":"determined","market_ticker":"KXBTC15M-26SEP251515-15","result":"no","settlement_value":"0.0000","determination_ts":1790363701}}',
    )
    assert.equal(determined?.kind, 'lifecycle')
    assert.equal(determined?.kind === 'lifecycle' && determined.event.result, 'no')
    assert.deepEqual(
      parseSocketFrame('{"id":126,"type":"error","msg":{"code":9,"msg":"Authentication required"}}'),
      {
        kind: 'error',
        code: 9,
        message: 'Authentication required',
      },
    )
    for (const bad of [
      'nope',
      '{"type":"cfbenchmarks_value","msg":{"data":"{bad"}}',
      '{"type":"market_lifecycle_v2","msg":{}}',
    ])
      assert.equal(parseSocketFrame(bad), null, bad)
  })
})

describe('Kalshi socket › against the fixture venue', () => {
  it('signs the handshake, subscribes to lifecycle and BRTI, and is refused with a wrong key', async () => {
    const w = await startKalshiVenueWorld({ fixture: { publicKeyPem } })
    const good = socketFor(w.kalshi.baseUrl)
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const events: boolean[] = []
    const bad = socketFor(
      w.kalshi.baseUrl,
      {
        keyId: 'stranger',
        privateKeyPem: other.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
      events,
    )
    try {
      good.start()
      await eventually(
        () => w.kalshi.wsCommands.length,
        (n) => n === 2,
      )
      const accepted = w.kalshi.wsHandshakes.find((h) => h.accepted)
      assert.equal(accepted?.headers['kalshi-access-key'], credentials.keyId)
      assert.ok(Math.abs(Number(accepted?.headers['kalshi-access-timestamp']) - Date.now()) < 30_000)
      assert.deepEqual(
        w.kalshi.wsCommands.map((c) => c.params),
        [{ channels: ['market_lifecycle_v2'] }, { channels: ['cfbenchmarks_value'], index_ids: ['BRTI'] }],
      )
      assert.equal(good.connected(), true)

      bad.start()
      await eventually(
        () => w.kalshi.wsHandshakes.filter((h) => !h.accepted).length,
        (n) => n >= 2,
      )
      assert.equal(bad.connected(), false)
      assert.ok(
        events.every((e) => e === false),
        'never connected, every attempt counted as a drop',
      )
    } finally {
      await Promise.all([good.close(), bad.close()])
      await w.close()
    }
  })

  it('makes BRTI the model’s spot while its prints are fresh, the exchange median otherwise', async () => {
    const spot = await startSpotWorld({
      maxAgeMs: 800,
      prepare: (ex) => {
        ex.coinbase.setPrice(68_000, 68_001)
        ex.kraken.setPrice(68_010, 68_011)
        ex.bitstamp.setPrice(68_020, 68_021)
      },
    })
    const w = await startKalshiVenueWorld({ fixture: { publicKeyPem } })
    const socket = socketFor(w.kalshi.baseUrl)
    const feed = withSettlementIndex({
      proxy: spot.feed,
      index: socket,
      maxAgeMs: 800,
      wallClock: { now: () => Date.now() },
    })
    try {
      socket.start()
      await eventually(
        () => w.kalshi.wsCommands.length,
        (n) => n === 2,
      )
      assert.equal(await feed.spotAt(Date.now()), 68_010.5, 'no print yet: the exchange median')
      w.kalshi.pushBrti(70_000.12, Date.now())
      await eventually(
        () => feed.spotAt(Date.now()),
        (s) => s === 70_000.12,
      )
      const brti = feed.sources().find((s) => s.name === 'brti')
      assert.deepEqual([brti?.fresh, brti?.midDollars], [true, 70_000.12])
      // a print stamped long ago by the index is not fresh, however new its arrival
      w.kalshi.pushBrti(71_000, Date.now() - 5_000)
      for (const x of [spot.ex.coinbase, spot.ex.kraken, spot.ex.bitstamp]) x.setPrice(68_100, 68_101)
      await eventually(
        () => feed.spotAt(Date.now()),
        (s) => s === 68_100.5,
      )
    } finally {
      await socket.close()
      await w.close()
      await spot.close()
    }
  })

  it('settles on the socket’s `settled` before REST shows finalized, and picks up strikes', async () => {
    const closing = makeMarket({
      openTime: NOW - 15 * MINUTE,
      closeTime: NOW,
      status: 'closed',
      floorStrike: 68_000,
    })
    const next = makeMarket({ openTime: NOW, closeTime: NOW + 15 * MINUTE, status: 'active' })
    const w = await startKalshiVenueWorld({
      fixture: { publicKeyPem },
      seed: (k) => [closing, next].forEach(k.addMarket),
      venue: { credentials },
    })
    const socket = socketFor(w.kalshi.baseUrl)
    try {
      const venue = await startSocketVenue(w, socket)
      try {
        w.kalshi.pushWs('market_lifecycle_v2', {
          event_type: 'metadata_updated',
          market_ticker: next.ticker,
          strike_type: 'greater_or_equal',
          floor_strike: 68_123.45,
          yes_sub_title: 'Target Price: $68,123.45',
        })
        w.kalshi.pushWs('market_lifecycle_v2', {
          event_type: 'determined',
          market_ticker: closing.ticker,
          result: 'yes',
          settlement_value: '1.0000',
          determination_ts: Math.floor(NOW / 1000) + 1,
        })
        await eventually(
          async () => (await venue.market(next.ticker, NOW))?.strikePriceDollars,
          (s) => s === 68_123.45,
        )
        assert.equal(await venue.result(closing.ticker, NOW), null, 'determined is provisional')
        w.kalshi.pushWs('market_lifecycle_v2', {
          event_type: 'settled',
          market_ticker: closing.ticker,
          settled_ts: Math.floor(NOW / 1000) + 8,
        })
        const result = await eventually(
          () => venue.result(closing.ticker, NOW),
          (r) => r !== null,
        )
        assert.deepEqual(result, { kind: 'settled', side: 'up', priceDollars: null })
        assert.equal(
          (
            (await (await fetch(`${w.kalshi.baseUrl}/markets/${closing.ticker}`)).json()) as {
              market: { status: string }
            }
          ).market.status,
          'closed',
          'REST has not finalized it yet',
        )
      } finally {
        await venue.close()
      }
    } finally {
      await socket.close()
      await w.close()
    }
  })

  it('settles by the socket with no settlement price when REST shows an expiration_value of 0', async () => {
    // REST's placeholder 0 is no index value (decisions §3: null when the oracle did not report it)
    const closing = makeMarket({
      openTime: NOW - 15 * MINUTE,
      closeTime: NOW,
      status: 'closed',
      floorStrike: 68_000,
    })
    const w = await startKalshiVenueWorld({
      fixture: { publicKeyPem },
      seed: (k) => k.addMarket({ ...closing, expiration_value: '0' }),
      venue: { credentials },
    })
    const socket = socketFor(w.kalshi.baseUrl)
    const venue = await startSocketVenue(w, socket)
    try {
      w.kalshi.pushWs('market_lifecycle_v2', {
        event_type: 'determined',
        market_ticker: closing.ticker,
        result: 'no',
        settlement_value: '0.0000',
        determination_ts: Math.floor(NOW / 1000) + 1,
      })
      w.kalshi.pushWs('market_lifecycle_v2', {
        event_type: 'settled',
        market_ticker: closing.ticker,
        settled_ts: Math.floor(NOW / 1000) + 8,
      })
      const result = await eventually(
        () => venue.result(closing.ticker, NOW),
        (r) => r !== null,
      )
      assert.deepEqual(result, { kind: 'settled', side: 'down', priceDollars: null })
    } finally {
      await venue.close()
      await socket.close()
      await w.close()
    }
  })

  it('drops other series’ lifecycle events before ingest: no warning per event, its own still taken', async () => {
    const w = await startKalshiVenueWorld({ fixture: { publicKeyPem } })
    const socket = socketFor(w.kalshi.baseUrl)
    const recording = venueRecording()
    const venue = await startSocketVenue(w, socket, recording.logger)
    try {
      const created = (ticker: string, eventTicker: string) =>
        w.kalshi.pushWs('market_lifecycle_v2', {
          event_type: 'created',
          market_ticker: ticker,
          open_ts: Math.floor(NOW / 1000) + 60,
          close_ts: Math.floor(NOW / 1000) + 960,
          additional_metadata: { event_ticker: eventTicker, strike_type: 'greater_or_equal' },
        })
      // the channel carries every market of the venue (venue facts §1.11)
      for (let i = 0; i < 40; i++) {
        created(`KXETH15M-26SEP261530-${i}`, 'KXETH15M-26SEP261530')
        created(`KXBTCD-26SEP2617-T${68_000 + i * 250}`, 'KXBTCD-26SEP2617')
      }
      const own = 'KXBTC15M-26SEP261530-30'
      created(own, 'KXBTC15M-26SEP261530')
      await eventually(
        () => venue.market(own, NOW),
        (m) => m !== null,
      )
      assert.equal(await venue.market('KXETH15M-26SEP261530-0', NOW), null)
      assert.deepEqual(
        recording.logs.filter((l) => l.level === 'warn'),
        [],
        'no warning for another series’ market',
      )
    } finally {
      await venue.close()
      await socket.close()
      await w.close()
    }
  })

  it('takes no instant that is not Unix seconds of this century, and no close before the open: the market stays as it was', async () => {
    const next = makeMarket({ openTime: NOW, closeTime: NOW + 15 * MINUTE, status: 'active' })
    const w = await startKalshiVenueWorld({
      fixture: { publicKeyPem },
      seed: (k) => k.addMarket(next),
      venue: { credentials },
    })
    const socket = socketFor(w.kalshi.baseUrl)
    const recording = venueRecording()
    const venue = await startSocketVenue(w, socket, recording.logger)
    try {
      await eventually(
        () => venue.market(next.ticker, NOW),
        (m) => m !== null,
      )
      const opened = 'KXBTC15M-26SEP261530-30'
      // milliseconds and microseconds where seconds belong (a new Date of them throws in the
      // handler, which would end the process), and closes at 1970, before the open, or in ms
      for (const at of [Math.floor(NOW / 1000) * 1000, Math.floor(NOW / 1000) * 1_000_000])
        w.kalshi.pushWs('market_lifecycle_v2', {
          event_type: 'created',
          market_ticker: opened,
          open_ts: at,
          close_ts: at + 900,
          additional_metadata: { event_ticker: 'KXBTC15M-26SEP261530', strike_type: 'greater_or_equal' },
        })
      for (const close of [0, -5, Math.floor(NOW / 1000) - 60, NOW + 15 * MINUTE])
        w.kalshi.pushWs('market_lifecycle_v2', {
          event_type: 'close_date_updated',
          market_ticker: next.ticker,
          close_ts: close,
        })
      // then a good event, which is taken: the socket and the process are alive
      w.kalshi.pushWs('market_lifecycle_v2', {
        event_type: 'metadata_updated',
        market_ticker: next.ticker,
        strike_type: 'greater_or_equal',
        floor_strike: 68_321.5,
      })
      const market = await eventually(
        () => venue.market(next.ticker, NOW),
        (m) => m?.strikePriceDollars === 68_321.5,
      )
      assert.equal(market?.expiresAt, NOW + 15 * MINUTE, 'the close REST gave')
      assert.equal(await venue.market(opened, NOW), null, 'no market from an opening at no instant')
      assert.equal(
        recording.logs.filter((l) => l.msg === 'kalshi close_date_updated before the market opens: ignored')
          .length,
        1,
        'the one close that is an instant, before the open, is said; the others are no instant at all',
      )
    } finally {
      await venue.close()
      await socket.close()
      await w.close()
    }
  })

  /**
   * A keyed socket on the fixture venue whose clock is the wall clock plus a shift the test moves
   * ("a minute later" is the test's), logging into a recording.
   */
  async function shiftedSocket() {
    let shiftMs = 0
    const recording = venueRecording()
    const w = await startKalshiVenueWorld({ fixture: { publicKeyPem } })
    const sign = createRequestSigner(credentials)
    const socket = createKalshiSocket({
      url: socketUrlFor(w.kalshi.baseUrl),
      // the handshake is signed at the wall time the venue checks, whatever the shift
      signer: (method, url) => sign(method, url, Date.now()),
      clock: { now: () => Date.now() + shiftMs },
      logger: recording.logger,
      backoff: { baseMs: 20, capMs: 100 },
    })
    const shift = (ms: number) => {
      shiftMs += ms
    }
    return { recording, w, socket, shift }
  }

  it('logs a socket outage once, then at most once a minute with a count, then the recovery', async () => {
    const { recording, w, socket, shift } = await shiftedSocket()
    const outage = () =>
      recording.logs.filter((l) => /^kalshi socket (ended|still failing|recovered)/.test(l.msg))
    const refused = () => w.kalshi.wsHandshakes.filter((h) => !h.accepted).length
    try {
      socket.start()
      await eventually(
        () => w.kalshi.wsCommands.length,
        (n) => n === 2,
      )
      w.kalshi.refuseWs(true)
      w.kalshi.dropWs()
      await eventually(refused, (n) => n >= 6)
      assert.equal(outage().length, 1, 'one line for the drop and six refused reconnects')
      assert.equal(outage()[0]!.level, 'warn')
      assert.equal(outage()[0]!.msg, 'kalshi socket ended; REST polling carries on, reconnecting')
      assert.equal(typeof outage()[0]!.fields.reason, 'string')

      shift(61_000)
      const before = refused()
      await eventually(refused, (n) => n >= before + 2)
      assert.equal(outage().length, 2)
      assert.match(outage()[1]!.msg, /^kalshi socket still failing: \d+ failed attempts since the last line$/)

      w.kalshi.refuseWs(false)
      await eventually(
        () => w.kalshi.wsCommands.length,
        (n) => n === 4,
      )
      // the venue answers on the new socket, and the client has read it before the minute passes: a
      // print goes after the subscriptions' answers on the same socket (waiting on the venue's side
      // only let a loaded run move the clock before the answers arrived, and up counted from then)
      const prints: number[] = []
      socket.onIndex((p) => void prints.push(p.value))
      w.kalshi.pushBrti(69_999, Date.now())
      await eventually(
        () => prints.length,
        (n) => n === 1,
      )
      assert.equal(outage().length, 2, 'answered again, but not yet for a minute')
      // a recovery is one that holds for a minute (a flap is the same outage)
      shift(60_000)
      w.kalshi.pushBrti(70_000, Date.now())
      await eventually(
        () => outage().length,
        (n) => n === 3,
      )
      assert.match(
        outage()[2]!.msg,
        /^kalshi socket recovered after \d+ failed attempts over \d+(\.\d+)? s \(up \d+(\.\d+)? s since\)$/,
      )
      const { downSeconds, upSeconds } = outage()[2]!.fields as { downSeconds: number; upSeconds: number }
      assert.ok(downSeconds >= 61, `down ${downSeconds} s: the minute's shift and more`)
      assert.ok(upSeconds >= 60 && upSeconds < downSeconds, `up ${upSeconds} s`)
    } finally {
      await socket.close()
      await w.close()
    }
  })

  it('logs the first connect at info; a flapping socket is one outage until it has stayed up a minute', async () => {
    const { recording, w, socket, shift } = await shiftedSocket()
    const prints: number[] = []
    socket.onIndex((p) => void prints.push(p.value))
    const above = () =>
      recording.logs.filter((l) => l.level !== 'debug').map((l) => [l.level, l.msg.replace(/ after .*/, '')])
    try {
      socket.start()
      // five flaps: each reconnect subscribes (the venue answers it), then drops again at once — once
      // the client has read the answers (a print goes after them on the same socket): a drop the
      // venue makes before its answers are read is a refused connect, not a brief recovery
      for (let flap = 1; flap <= 6; flap++) {
        await eventually(
          () => w.kalshi.wsCommands.length,
          (n) => n === 2 * flap,
        )
        w.kalshi.pushBrti(69_990 + flap, Date.now())
        await eventually(
          () => prints.length,
          (n) => n === flap,
        )
        if (flap < 6) w.kalshi.dropWs()
      }
      shift(30_000)
      w.kalshi.pushBrti(70_000, Date.now())
      await eventually(
        () => prints.length,
        (n) => n === 7,
      )
      assert.deepEqual(above(), [
        ['info', 'kalshi socket connected'],
        ['warn', 'kalshi socket ended; REST polling carries on, reconnecting'],
      ])

      // up a minute on the service clock: the outage ends, naming the flaps and the time up
      shift(30_000)
      w.kalshi.pushBrti(70_001, Date.now())
      await eventually(
        () => recording.logs.filter((l) => l.msg.startsWith('kalshi socket recovered')).length,
        (n) => n === 1,
      )
      assert.deepEqual(above(), [
        ['info', 'kalshi socket connected'],
        ['warn', 'kalshi socket ended; REST polling carries on, reconnecting'],
        ['warn', 'kalshi socket recovered'],
      ])
      const end = recording.logs.find((l) => l.msg.startsWith('kalshi socket recovered'))!
      assert.match(
        end.msg,
        /^kalshi socket recovered after 5 failed attempts over \d+(\.\d+)? s \(4 brief recoveries that failed again; up 6\d(\.\d+)? s since\)$/,
      )
      assert.equal(end.fields.flaps, 4)
    } finally {
      await socket.close()
      await w.close()
    }
  })

  it('reconnects and resubscribes after a drop, with a metric and a log line; REST never stops', async () => {
    const live = makeMarket({ openTime: NOW - MINUTE, closeTime: NOW + 14 * MINUTE, status: 'active' })
    const events: boolean[] = []
    const logs: string[] = []
    const w = await startKalshiVenueWorld({ fixture: { publicKeyPem }, seed: (k) => k.addMarket(live) })
    const socket = socketFor(w.kalshi.baseUrl, credentials, events, logs)
    try {
      socket.start()
      await eventually(
        () => w.kalshi.wsCommands.length,
        (n) => n === 2,
      )
      w.kalshi.refuseWs(true)
      w.kalshi.dropWs()
      await eventually(
        () => w.kalshi.wsHandshakes.filter((h) => !h.accepted).length,
        (n) => n >= 2,
      )
      assert.equal(socket.connected(), false)
      // REST polling carries on meanwhile
      const polled = w.requestsTo('/markets').length
      await w.polls(2)
      assert.ok(w.requestsTo('/markets').length > polled)
      w.kalshi.updateMarket(live.ticker, { floor_strike: 68_500 })
      await w.polls(2)
      assert.equal((await w.venue.market(live.ticker, NOW))?.strikePriceDollars, 68_500)

      w.kalshi.refuseWs(false)
      await eventually(
        () => w.kalshi.wsCommands.length,
        (n) => n === 4,
      )
      assert.equal(socket.connected(), true)
      assert.deepEqual(events.slice(0, 2), [true, false])
      assert.equal(events.at(-1), true)
      assert.ok(logs.includes('kalshi socket ended; REST polling carries on, reconnecting'))
    } finally {
      await socket.close()
      await w.close()
    }
  })
})
