import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { bucketKeyFor, bucketKeyOf, ipv4FromNumber, ipv4Number } from './client-address.ts'

describe('bucketKeyFor', () => {
  test('an IPv4 address is its own key', () => {
    assert.equal(bucketKeyFor('203.0.113.7'), '203.0.113.7')
  })

  test('an IPv4-mapped IPv6 address counts as the IPv4 address', () => {
    assert.equal(bucketKeyFor('::ffff:203.0.113.7'), '203.0.113.7')
    assert.equal(bucketKeyFor('::FFFF:203.0.113.7'), '203.0.113.7')
    assert.equal(bucketKeyFor('::ffff:cb00:7107'), '203.0.113.7')
    assert.equal(bucketKeyFor('0:0:0:0:0:ffff:cb00:7107'), '203.0.113.7')
  })

  test('an IPv6 address counts by its /64 prefix', () => {
    assert.equal(bucketKeyFor('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
    assert.equal(bucketKeyFor('2001:db8:1:2::99'), '2001:db8:1:2::/64')
    assert.equal(bucketKeyFor('2001:0DB8:0001:0002:ffff:0:0:1'), '2001:db8:1:2::/64')
  })

  test('addresses in one /64 share a key and neighbouring /64s do not', () => {
    assert.equal(bucketKeyFor('2001:db8::1'), bucketKeyFor('2001:db8::ffff:1:2:3'))
    assert.notEqual(bucketKeyFor('2001:db8:0:1::1'), bucketKeyFor('2001:db8:0:2::1'))
  })

  test('short forms expand before the prefix is taken', () => {
    assert.equal(bucketKeyFor('::1'), '0:0:0:0::/64')
    assert.equal(bucketKeyFor('fe80::1%eth0'), 'fe80:0:0:0::/64')
    assert.equal(bucketKeyFor('64:ff9b::192.0.2.33'), '64:ff9b:0:0::/64')
  })

  test('something that is not an address is kept as given, so it still gets a bucket', () => {
    assert.equal(bucketKeyFor('unknown'), 'unknown')
  })
})

describe('bucketKeyOf', () => {
  test('keys IPv4 (mapped IPv6 included) by one number that round-trips to bucketKeyFor', () => {
    for (const a of ['203.0.113.7', '0.0.0.0', '255.255.255.255', '10.0.0.1', '::ffff:203.0.113.7']) {
      const key = bucketKeyOf(a)
      assert.equal(typeof key, 'number')
      assert.equal(ipv4FromNumber(key as number), bucketKeyFor(a))
    }
    assert.equal(bucketKeyOf('203.0.113.7'), bucketKeyOf('::ffff:cb00:7107'))
  })

  test('takes only canonical dotted quads as numbers; the rest keep bucketKeyFor', () => {
    for (const a of ['01.2.3.4', '1.2.3', '1.2.3.4.5', '256.1.1.1', '1..2.3', '1.2.3.4 ', 'a.b.c.d', '']) {
      assert.equal(ipv4Number(a), null, a)
    }
    assert.equal(bucketKeyOf('2001:db8:1:2::99'), '2001:db8:1:2::/64')
    assert.equal(bucketKeyOf('unknown'), 'unknown')
    assert.notEqual(bucketKeyOf('1.2.3.4'), bucketKeyOf('1.2.3.5'))
  })
})
