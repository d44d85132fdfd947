// The venue JSON client names why a request never reached the venue, in the operator's terms: the
// system error with its address, or the reason fetch itself gave, never a bare "fetch failed".
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createJsonClient } from '../src/feeds/venue-http/json-client.ts'
import { freePort } from './support/ports.ts'

const silent = { debug() {}, info() {}, warn() {}, error() {} } as never

describe('a request that never reaches the venue', () => {
  it('names why: the system error and address, or what fetch itself refused', async () => {
    const reply = (baseUrl: string) =>
      createJsonClient({
        baseUrl,
        venue: 'test',
        clock: { now: () => 0 },
        logger: silent,
        maxAttempts: 1,
        sleep: async () => undefined,
      }).get('x', '/x')
    // a port nothing listens on: refused by the kernel
    const port = await freePort()
    const refused = await reply(`http://127.0.0.1:${port}`)
    assert.equal(refused.ok, false)
    assert.match(JSON.stringify(refused), new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`))
    // port 1 is one fetch will not use at all: its reason, not a bare "fetch failed"
    const bad = await reply('http://127.0.0.1:1')
    assert.match(JSON.stringify(bad), /fetch failed: bad port/)
  })
})
