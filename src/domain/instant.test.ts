import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseDateTime, parseInstant } from './instant.ts'

test('a date-time needs its offset and its seconds; the instant is the same whatever the offset', () => {
  const t = Date.parse('2026-11-23T17:00:00Z')
  assert.equal(parseDateTime('2026-11-23T17:00:00Z'), t)
  assert.equal(parseDateTime('2026-11-23T12:00:00-05:00'), t)
  assert.equal(parseDateTime('2026-11-23t17:00:00.000z'), t)
  for (const bad of ['2026-11-23', '2026-11-23T17:00:00', '2026-11-23T17:00Z', '2026-13-40T99:00:00Z', ''])
    assert.equal(parseDateTime(bad), null, bad)
})

test('an instant may also be a date, read as its UTC midnight', () => {
  assert.equal(parseInstant('2026-11-23'), Date.parse('2026-11-23T00:00:00Z'))
  assert.equal(parseInstant('2026-11-23T17:00:00Z'), Date.parse('2026-11-23T17:00:00Z'))
  assert.equal(parseInstant('23/11/2026'), null)
})

test('a day the month does not have, or hour 24, is refused, not rolled over into the next month or day', () => {
  for (const bad of [
    '2026-02-30T00:00:00Z',
    '2026-02-29T12:00:00Z',
    '2026-04-31T00:00:00+02:00',
    '2026-11-23T24:00:00Z',
    '2026-11-00T00:00:00Z',
  ])
    assert.equal(parseDateTime(bad), null, bad)
  for (const bad of ['2026-02-30', '2026-06-31', '2026-00-10']) assert.equal(parseInstant(bad), null, bad)
  // the days that exist still read
  assert.equal(parseInstant('2028-02-29'), Date.parse('2028-02-29T00:00:00Z'))
  assert.equal(parseDateTime('2026-01-31T23:59:59.999-05:00'), Date.parse('2026-02-01T04:59:59.999Z'))
})
