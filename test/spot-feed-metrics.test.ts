// What an operator sees of the spot exchanges in metrics, through the real adapters over loopback
// sockets against the fixture exchanges, wired to the engine's registry as the runtime wires it: a
// socket that drops or is refused, frames and REST bodies the adapter cannot read, and REST requests
// by status.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createMetrics } from '../src/metrics/metrics.ts'
import { startSpotWorld } from './support/spot-world.ts'
import { eventually } from './support/wait.ts'

// long enough that only the faults a test makes end a socket, even on a loaded machine
const STEADY = { silenceMs: 10_000 }

function engineMetrics() {
  const metrics = createMetrics({ role: 'engine' })
  /** The sample of `name` with exactly these labels' values (others ignored), or undefined. */
  const sample = async (name: string, labels: Record<string, string>): Promise<number | undefined> => {
    const { values } = await metrics.registry.getSingleMetric(name)!.get()
    return values.find((v) =>
      Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
    )?.value
  }
  return { metrics, sample }
}

describe('spot feed metrics', () => {
  it('flips a source’s socket gauge to 0 when it drops, counts the drop and each refused reconnect, and back to 1', async () => {
    const { metrics, sample } = engineMetrics()
    const w = await startSpotWorld({ timing: STEADY, telemetry: metrics.spotTelemetry })
    const connected = (source: string) => sample('cs_spot_socket_connected', { source })
    const drops = (source: string) => sample('cs_spot_socket_drops_total', { source })
    try {
      for (const source of ['coinbase', 'kraken', 'bitstamp'])
        await eventually(
          () => connected(source),
          (v) => v === 1,
        )
      assert.equal(await drops('kraken'), 0, 'a source that never dropped reads 0, not absent')

      w.ex.kraken.refuseConnections(true)
      w.ex.kraken.dropConnections()
      await eventually(
        () => connected('kraken'),
        (v) => v === 0,
      )
      // the dropped session, then at least one reconnect the exchange refused
      await eventually(
        () => drops('kraken'),
        (n) => n !== undefined && n >= 2,
      )
      w.ex.kraken.refuseConnections(false)
      await eventually(
        () => connected('kraken'),
        (v) => v === 1,
      )
      const dropped = await drops('kraken')
      assert.equal(await connected('kraken'), 1)
      assert.equal(await drops('kraken'), dropped, 'a connected socket adds no drops')
      // the other exchanges' series are their own
      assert.equal(await connected('coinbase'), 1)
      assert.equal(await connected('bitstamp'), 1)
      assert.equal(await drops('coinbase'), 0)
      assert.equal(await drops('bitstamp'), 0)
    } finally {
      await w.close()
    }
  })

  it('counts a Bitstamp reconnect request as a session ended, and reads 1 again once reconnected', async () => {
    const { metrics, sample } = engineMetrics()
    const w = await startSpotWorld({
      sources: ['bitstamp'],
      timing: STEADY,
      telemetry: metrics.spotTelemetry,
    })
    try {
      await eventually(
        () => w.ex.bitstamp.subscriptions.length,
        (n) => n === 1,
      )
      w.ex.bitstamp.requestReconnect()
      await eventually(
        () => w.ex.bitstamp.subscriptions.length,
        (n) => n === 2,
      )
      await eventually(
        () => sample('cs_spot_socket_connected', { source: 'bitstamp' }),
        (v) => v === 1,
      )
      assert.equal(await sample('cs_spot_socket_drops_total', { source: 'bitstamp' }), 1)
    } finally {
      await w.close()
    }
  })

  it('counts frames the adapter could not read by source and field, indices dropped, without dropping the socket', async () => {
    const { metrics, sample } = engineMetrics()
    const w = await startSpotWorld({ timing: STEADY, telemetry: metrics.spotTelemetry })
    const rejected = (source: string, field: string) =>
      sample('cs_spot_rejected_frames_total', { source, field })
    try {
      for (const f of [w.ex.coinbase, w.ex.kraken, w.ex.bitstamp])
        await eventually(
          () => f.subscriptions.length,
          (n) => n === 1,
        )
      w.ex.coinbase.sendRaw('not json at all')
      w.ex.coinbase.sendRaw(
        JSON.stringify({ type: 'ticker', product_id: 'BTC-USD', best_bid: 'abc', best_ask: '1', time: 'x' }),
      )
      w.ex.kraken.sendRaw(
        JSON.stringify({ channel: 'ticker', type: 'update', data: [{ symbol: 'BTC/USD', bid: -1, ask: 1 }] }),
      )
      // a bad second level of the book: one series for any level, not one per index
      w.ex.bitstamp.sendRaw(
        JSON.stringify({
          event: 'data',
          channel: 'order_book_btcusd',
          data: {
            bids: [
              ['68000', '1'],
              ['oops', '1'],
            ],
            asks: [['68001', '1']],
          },
        }),
      )
      await eventually(
        async () => [
          await rejected('coinbase', 'message'),
          await rejected('coinbase', 'ticker.best_bid'),
          await rejected('kraken', 'ticker.data[].bid'),
          await rejected('bitstamp', 'book.data.bids[][]'),
        ],
        (counts) => counts.every((n) => n === 1),
      )
      for (const source of ['coinbase', 'kraken', 'bitstamp']) {
        assert.equal(await sample('cs_spot_socket_connected', { source }), 1, source)
        assert.equal(await sample('cs_spot_socket_drops_total', { source }), 0, source)
      }
    } finally {
      await w.close()
    }
  })

  it('counts REST requests by endpoint and status, and a ticker body it could not read by its field', async () => {
    const { metrics, sample } = engineMetrics()
    const w = await startSpotWorld({
      sources: ['coinbase'],
      timing: STEADY,
      telemetry: metrics.spotTelemetry,
      prepare: (ex) => ex.coinbase.failRest(true),
    })
    const requests = (endpoint: string, status: string) =>
      sample('cs_spot_rest_requests_total', { source: 'coinbase', endpoint, status })
    try {
      // the socket sends no price, so the REST ticker stands in, and fails
      await eventually(
        () => requests('ticker', '503'),
        (n) => n !== undefined && n >= 2,
      )
      assert.equal(await requests('candles', '503'), 1, 'the warm-up')
      w.ex.coinbase.setRestPrice(-1, 68000)
      w.ex.coinbase.failRest(false)
      await eventually(
        () => sample('cs_spot_rejected_frames_total', { source: 'coinbase', field: 'ticker.bid' }),
        (n) => n !== undefined && n >= 1,
      )
      assert.ok(((await requests('ticker', '200')) ?? 0) >= 1, 'an unreadable body still answered 200')
      await eventually(
        () => requests('candles', '200'),
        (n) => n === 1,
      )
      await w.close()
      assert.equal(
        await requests('ticker', 'error'),
        undefined,
        'a request cut short by close is not counted',
      )
    } finally {
      await w.close()
    }
  })
})
