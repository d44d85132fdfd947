import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { test } from 'node:test'
import { createClientAddress } from './client-address.ts'
import { createRequestRules } from './request-rules.ts'

/** A request as the rules read it: its raw header lines, on a socket from `peer`. */
const requestOn = (socket: object, headers: [string, string][]) =>
  ({
    rawHeaders: headers.flat(),
    socket,
    url: '/v1/contests',
    httpVersion: '1.1',
  }) as unknown as IncomingMessage

test("a connection's requests each get their own client address, with and without X-Forwarded-For", () => {
  const rules = createRequestRules(createClientAddress(['10.0.0.1']))
  const proxy = { remoteAddress: '10.0.0.1' }
  const host: [string, string] = ['Host', 'api.example']
  const facts = [
    rules(requestOn(proxy, [host])),
    rules(requestOn(proxy, [host, ['X-Forwarded-For', '198.51.100.9']])),
    rules(requestOn(proxy, [host])),
    rules(requestOn(proxy, [host, ['X-Forwarded-For', '2001:db8:1:2::7']])),
  ]
  assert.deepEqual(
    facts.map((f) => [f.address, f.bucketKey]),
    [
      ['10.0.0.1', rules(requestOn({ remoteAddress: '10.0.0.1' }, [host])).bucketKey],
      ['198.51.100.9', rules(requestOn({ remoteAddress: '198.51.100.9' }, [host])).bucketKey],
      ['10.0.0.1', facts[0]!.bucketKey],
      ['2001:db8:1:2::7', '2001:db8:1:2::/64'],
    ],
  )
  // another connection from another peer is its own
  const direct = rules(requestOn({ remoteAddress: '203.0.113.5' }, [host]))
  assert.equal(direct.address, '203.0.113.5')
  assert.notEqual(direct.bucketKey, facts[0]!.bucketKey)
})
