import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { createClientAddress, hopAddress } from '../src/http/client-address.ts'

// Fastify's own request.ip library, as the oracle: the limiter must count exactly the address it would,
// except that a hop which is no address ends the chain (the oracle is given only the hops right of it).
const proxyAddr = createRequire(import.meta.url)('@fastify/proxy-addr') as {
  (req: IncomingMessage, trust: (addr: string, i: number) => boolean): string
  compile(list: string[]): (addr: string, i: number) => boolean
}

function oracle(trust: string[], socket: string, xff: string | undefined): string {
  const req = {
    socket: { remoteAddress: socket },
    headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
  }
  return proxyAddr(req as unknown as IncomingMessage, proxyAddr.compile(trust))
}

const TRUST = ['127.0.0.1', '10.0.0.0/8', '192.168.1.0/24', '2001:db8::/32', '::1']
const HOPS = [
  '127.0.0.1',
  '10.1.2.3',
  '192.168.1.77',
  '192.168.2.1',
  '203.0.113.7',
  '::ffff:10.9.9.9',
  '::ffff:203.0.113.9',
  '2001:db8::5',
  '2001:dead::1',
  '::1',
  'unknown',
  '',
  ' 198.51.100.4 ',
  '\t10.0.0.1',
]

describe('createClientAddress', () => {
  test('without TRUST_PROXY the socket peer is the client, whatever the header says', () => {
    const of = createClientAddress([])
    assert.equal(of('198.51.100.1', '203.0.113.7'), '198.51.100.1')
  })

  test('takes the right-most untrusted X-Forwarded-For hop behind a trusted peer', () => {
    const of = createClientAddress(TRUST)
    assert.equal(of('127.0.0.1', '203.0.113.7, 198.51.100.2, 10.0.0.9'), '198.51.100.2')
    assert.equal(of('127.0.0.1', '10.0.0.8, 10.0.0.9'), '10.0.0.8')
    assert.equal(of('198.51.100.1', '203.0.113.7'), '198.51.100.1')
    assert.equal(of('127.0.0.1', undefined), '127.0.0.1')
  })

  test('a hop with a port counts as its address, so a new source port is not a new client', () => {
    const of = createClientAddress(TRUST)
    assert.equal(of('127.0.0.1', '203.0.113.7:4711'), '203.0.113.7')
    assert.equal(of('127.0.0.1', '[2001:dead::1]:443'), '2001:dead::1')
    assert.equal(of('127.0.0.1', '198.51.100.2, [2001:db8::5]:80'), '198.51.100.2')
    assert.equal(of('127.0.0.1', '198.51.100.2, 10.0.0.9:8080'), '198.51.100.2')
  })

  test('a hop that is no address is never a client: the trusted hop that reported it is', () => {
    const of = createClientAddress(TRUST)
    assert.equal(of('127.0.0.1', 'foo'), '127.0.0.1')
    assert.equal(of('127.0.0.1', '203.0.113.7, unknown, 10.0.0.9'), '10.0.0.9')
    assert.equal(of('127.0.0.1', 'unknown, 203.0.113.7'), '203.0.113.7')
    for (const junk of [
      '1.2.3.4:',
      '1.2.3.4:99999',
      '[2001:db8::1',
      '[1.2.3.4]:80',
      '2001:db8::1:80:x',
      'a:b',
    ])
      assert.equal(hopAddress(junk), null, junk)
  })

  test('agrees with @fastify/proxy-addr on any mix of hops', () => {
    const of = createClientAddress(TRUST)
    const hop = fc.constantFrom(...HOPS)
    const isAddress = (h: string) => h.trim() === '' || hopAddress(h.trim()) !== null
    fc.assert(
      fc.property(
        hop,
        fc.option(fc.array(hop, { maxLength: 5 }), { nil: undefined }),
        fc.constantFrom(',', ', ', ' ,'),
        (socket, hops, sep) => {
          const xff = hops?.join(sep)
          const junkAt = hops === undefined ? -1 : hops.findLastIndex((h) => !isAddress(h))
          const readable = hops === undefined || junkAt === -1 ? xff : hops.slice(junkAt + 1).join(sep)
          assert.equal(of(socket, xff), oracle(TRUST, socket, readable))
        },
      ),
      { numRuns: 2000 },
    )
  })
})
