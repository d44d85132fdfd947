// Every HTTP ratio of the benchmark rests on its baseline, a bare node:http server (bench/bare-server.ts),
// putting on the wire the very bytes the service sent: status line, every header in order (Node's own
// Date, Connection and Keep-Alive included) and body. Here the real service and the real bare server
// answer the same request and their answers are compared byte for byte, Date and the request id aside.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { CapturedResponse } from '../bench/bare-server.ts'
import { capture, discoverTicker } from '../bench/http-bench.ts'
import { type Helper, startHelper } from '../bench/processes.ts'
import { freePort } from './support/ports.ts'
import { tempDir } from './support/service-process.ts'
import { type SimService, startSimService } from './support/sim-service.ts'
import { createWireClient, type WireResponse } from './support/wire-client.ts'

/** Header lines that differ by nature: the clock's, and the id the service gives each request. */
const PER_ANSWER = new Set(['date', 'x-request-id'])

function comparable(res: WireResponse) {
  return {
    statusLine: res.statusLine,
    headers: res.headers.filter(([name]) => !PER_ANSWER.has(name.toLowerCase())),
    body: res.body.toString('base64'),
  }
}

async function get(port: number, target: string, headers: Record<string, string>): Promise<WireResponse> {
  const client = createWireClient(port)
  try {
    return await client.send('GET', target, headers)
  } finally {
    client.close()
  }
}

describe('the HTTP benchmark baseline', () => {
  const tmp = tempDir()
  let world: SimService
  let bare: Helper
  let barePort: number

  before(async () => {
    world = await startSimService({
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: String(await freePort()),
      // a virtual second a second: the settled contest and the history page stay put while compared
      SIM_SPEED: '1',
      RATE_LIMIT_BURST: '1000',
    })
    bare = startHelper('bare-server.ts')
    barePort = await bare.next<number>('port')
  })
  after(async () => {
    bare?.stop()
    await world?.service.kill()
    tmp.remove()
  })

  it("puts the service's own bytes on the wire, Keep-Alive included, for each answer the bench loads", async () => {
    const auth = { Authorization: `Bearer ${world.key}` }
    const ticker = await discoverTicker(world, 'KXBTC15M')
    const answers: [string, Record<string, string>, number][] = [
      [`/v1/contests/${ticker}`, auth, 200],
      ['/v1/contests?series=KXBTC15M&limit=100', { ...auth, 'Accept-Encoding': 'gzip' }, 200],
      ['/v1/contests/active?series=KXBTC15M', { Authorization: 'Bearer cs_notAKeyOfThisDeployment' }, 401],
    ]
    const servicePort = Number(new URL(world.url).port)
    for (const [target, headers, status] of answers) {
      const captured: CapturedResponse = await capture(world, target, headers)
      assert.equal(captured.status, status, target)
      await bare.ask({ replay: captured }, 'ready')
      const fromService = comparable(await get(servicePort, target, headers))
      const fromBare = comparable(await get(barePort, target, headers))
      assert.deepEqual(fromBare, fromService, target)
      assert.ok(
        fromService.headers.some(([name]) => name.toLowerCase() === 'keep-alive'),
        `${target}: the service names its keep-alive`,
      )
    }
  })
})
