import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { bucketKeyFor } from './client-address.ts'

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
