import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createManualClock } from '../../test/support/manual-clock.ts'
import { KEY_PREFIX } from '../domain/api-key.ts'
import { newKey } from './key-service.ts'

describe('newKey', () => {
  it('leaves at least 128 random bits unknown to whoever reads the listing (decisions §7)', () => {
    const { key, record } = newKey('bot', createManualClock())
    assert.ok(key.startsWith(record.prefix), 'the listing shows the start of the key')
    // base64url: six bits a character; the listing's characters after the prefix are known
    const hiddenBits = (key.length - record.prefix.length) * 6
    assert.ok(hiddenBits >= 128, `${hiddenBits} bits beyond what keys list shows`)
    assert.ok(record.prefix.length > KEY_PREFIX.length, 'the listing tells keys apart')
  })
})
