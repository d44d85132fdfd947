// BRTI entitlement against the fixture venue: a `subscribe` ack does not prove the account may read
// the index, so it is asked for once through the venue's CF Benchmarks passthrough; the log says
// whether BRTI flows, and a refused index is `down` among the spot sources at once.
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { describe, it } from 'node:test'
import { probeIndexEntitlement } from '../src/feeds/kalshi/index-entitlement.ts'
import { withSettlementIndex } from '../src/feeds/kalshi/index-spot.ts'
import { createKalshiClient } from '../src/feeds/kalshi/kalshi-client.ts'
import { createKalshiSocket, socketUrlFor } from '../src/feeds/kalshi/kalshi-socket.ts'
import { createRequestSigner } from '../src/feeds/kalshi/request-signing.ts'
import type { PriceFeed } from '../src/ports/venue.ts'
import { startKalshiFixture } from './fixtures/kalshi-fixture.ts'
import { venueRecording } from './support/venue-recording.ts'
import { eventually } from './support/wait.ts'

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString()
const credentials = {
  keyId: 'a952bcbe-ec3b-4b5b-b8f9-11dae589608c',
  privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
}
const clock = { now: () => Date.now() }
/** the exchange median the index stands in for: none here */
const proxy: PriceFeed = {
  name: 'spot',
  spotAt: async () => null,
  minuteClosesBefore: async () => [],
  observeSpot: async () => null,
  stampedClosesBefore: async () => [],
  sources: () => [],
  start: async () => {},
  close: async () => {},
}

async function brtiWorld(indexEntitled: boolean) {
  const kalshi = await startKalshiFixture({ publicKeyPem, indexEntitled })
  const recording = venueRecording()
  const socket = createKalshiSocket({
    url: socketUrlFor(kalshi.baseUrl),
    signer: createRequestSigner(credentials),
    clock,
    logger: recording.logger,
  })
  const client = createKalshiClient({
    baseUrl: kalshi.baseUrl,
    clock,
    logger: recording.logger,
    signer: createRequestSigner(credentials),
  })
  const feed = withSettlementIndex({
    proxy,
    index: socket,
    maxAgeMs: 5_000,
    wallClock: clock,
    logger: recording.logger,
    entitlement: () => probeIndexEntitlement(client, 'BRTI'),
  })
  socket.start()
  await feed.start()
  // the venue acknowledged the subscription either way
  await eventually(
    () => kalshi.wsCommands.length,
    (n) => n === 2,
  )
  const said = (text: string) => recording.logs.some((l) => l.msg.startsWith(text))
  return {
    kalshi,
    feed,
    said,
    brti: () => feed.sources().find((s) => s.name === 'brti'),
    async close() {
      await socket.close()
      await feed.close()
      await kalshi.close()
    },
  }
}

describe('Kalshi › BRTI entitlement', () => {
  it('says in the log that BRTI flows once entitled and printing', async () => {
    const w = await brtiWorld(true)
    try {
      await eventually(
        () => w.said('BRTI entitlement confirmed'),
        (s) => s,
      )
      w.kalshi.pushBrti(68_431.92, Date.now())
      await eventually(
        () => w.said('BRTI flows'),
        (s) => s,
      )
      assert.equal(w.brti()?.state, 'ok')
      assert.equal(w.brti()?.index, 'ok', 'health says BRTI flows')
      assert.equal(w.kalshi.requests.filter((r) => r.path.endsWith('/cfbenchmarks/values')).length, 1)
    } finally {
      await w.close()
    }
  })

  it('says it does not flow when the account lacks the entitlement, despite the subscribe ack', async () => {
    const w = await brtiWorld(false)
    try {
      await eventually(
        () => w.said('BRTI refused'),
        (s) => s,
      )
      assert.equal(w.brti()?.state, 'down', 'down at once, not after a minute of silence')
      assert.equal(w.brti()?.index, 'refused', 'health says why BRTI does not flow')
      assert.equal(w.said('BRTI flows'), false)
    } finally {
      await w.close()
    }
  })
})
