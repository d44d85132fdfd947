// The fast path and the framework path agree at the edges the hardening added: a stream over the
// per-address cap is refused with the same 429, a request without Host gets the same 400 (Node's
// parser refuses it before either path runs), and every answer carries nosniff.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import {
  expiryOutlastingTheRun,
  makeContest,
  makeIssuedKey,
  newSeries,
  quarterHourOf,
} from './support/contest-fixtures.ts'
import { createStubStreamHub } from './support/stub-stream-hub.ts'
import { createTestWorld, type TestWorld } from './support/test-world.ts'
import { createWireClient, type WireResponse } from './support/wire-client.ts'

describe('fast path vs framework path at the hardened edges', () => {
  const env = { TRUST_PROXY: '127.0.0.1', STREAM_MAX_PER_ADDRESS: '1' }
  const series = newSeries()
  const key = makeIssuedKey('edges')
  let fast: TestWorld
  let framework: TestWorld

  before(async () => {
    fast = await createTestWorld({ env, fastPath: true, streams: createStubStreamHub() })
    framework = await createTestWorld({ env, fastPath: false, streams: createStubStreamHub() })
    for (const w of [fast, framework]) {
      const opensAt = quarterHourOf(Date.now())
      await w.store.openContest(makeContest({ series, opensAt, expiresAt: expiryOutlastingTheRun(opensAt) }))
      await w.store.createKey(key.record)
    }
  })
  after(async () => {
    await fast?.close()
    await framework?.close()
  })

  const comparable = (res: WireResponse) => ({
    statusLine: res.statusLine,
    headers: res.headers.map(([k, v]): [string, string] =>
      k.toLowerCase() === 'date' || k.toLowerCase() === 'x-request-id' ? [k, '*'] : [k, v],
    ),
    body: res.body.toString(),
  })

  test('a second stream from one address over STREAM_MAX_PER_ADDRESS=1 gets the same 429', async () => {
    const answers: WireResponse[] = []
    for (const w of [fast, framework]) {
      const port = Number(new URL(w.baseUrl).port)
      const headers = {
        Host: 'api.test',
        Authorization: `Bearer ${key.key}`,
        'X-Forwarded-For': '203.0.113.9',
      }
      const first = createWireClient(port)
      const opened = await first.send('GET', `/v1/stream/contests?series=${series}`, headers, {
        headOnly: true,
      })
      assert.match(opened.statusLine, / 200 /)
      const second = createWireClient(port)
      answers.push(
        await second.send('GET', `/v1/stream/contests?series=${series}`, headers, { headOnly: true }),
      )
      first.close()
      second.close()
    }
    const [viaFast, viaFramework] = answers.map(comparable)
    assert.match(viaFast!.statusLine, / 429 /)
    assert.deepEqual(viaFast, viaFramework)
    assert.ok(answers[0]!.headers.some(([k, v]) => k === 'x-content-type-options' && v === 'nosniff'))
  })

  test('an HTTP/1.1 request without Host gets the same 400 on both', async () => {
    const answers: string[] = []
    for (const w of [fast, framework]) {
      // the wire client always sends Host: a raw socket does not
      const socket = connect(Number(new URL(w.baseUrl).port), '127.0.0.1')
      socket.write(
        `GET /v1/contests/active?series=${series} HTTP/1.1\r\nAuthorization: Bearer ${key.key}\r\n\r\n`,
      )
      let text = ''
      socket.setEncoding('latin1').on('data', (chunk: string) => {
        text += chunk
      })
      await once(socket, 'close')
      answers.push(text.replace(/^(date|x-request-id): .*$/gim, '$1: *'))
    }
    assert.match(answers[0]!, /^HTTP\/1\.1 400 /)
    assert.equal(answers[0], answers[1])
  })

  test('a hot answer from the fast path carries nosniff like every other', async () => {
    const client = createWireClient(Number(new URL(fast.baseUrl).port))
    const headers = {
      Host: 'api.test',
      Authorization: `Bearer ${key.key}`,
      'X-Forwarded-For': '203.0.113.10',
    }
    await client.send('GET', `/v1/contests/active?series=${series}`, headers)
    const res = await client.send('GET', `/v1/contests/active?series=${series}`, headers)
    client.close()
    assert.match(res.statusLine, / 200 /)
    assert.ok(res.headers.some(([k, v]) => k === 'x-content-type-options' && v === 'nosniff'))
  })
})
