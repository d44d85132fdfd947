import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createRepeatedErrors } from './repeated-errors.ts'

test('a failure repeating every tick is logged with its stack once, then once a minute with its count', () => {
  const lines: { fields: Record<string, unknown>; message: string }[] = []
  let t = 0
  const errors = createRepeatedErrors(
    {
      error: (fields: object, message: string) =>
        lines.push({ fields: fields as Record<string, unknown>, message }),
    } as never,
    () => t,
  )
  const full = new Error('database or disk is full')
  for (; t < 60_000; t += 500) errors.error({ err: full, step: 'readings' }, 'engine step failed: readings')
  assert.equal(lines.length, 1)
  assert.equal(lines[0]!.fields.err, full)
  errors.error({ err: full, step: 'readings' }, 'engine step failed: readings')
  assert.equal(lines.length, 2)
  assert.equal(lines[1]!.fields.repeats, 119)
  assert.equal(lines[1]!.fields.err, undefined, 'no second stack')
  assert.match(lines[1]!.message, /repeated 119 times/)
  // another failure is logged at once
  errors.error({ err: new Error('locked') }, 'engine step failed: readings')
  assert.equal(lines.length, 3)
})
