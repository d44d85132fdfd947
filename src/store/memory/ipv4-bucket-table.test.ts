import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { createIpv4BucketTable } from './ipv4-bucket-table.ts'

type Op =
  | { kind: 'set' /** index into the run's keys */; key: number; tat: number }
  | { kind: 'sweep'; below: number }
  | { kind: 'evict'; count: number }

// A handful of keys drawn anew for each run (any int32), in a table of 16 or 128 slots, so that probe
// runs collide, wrap around the end and shift back on removal.
const keyOps = (pool: number): fc.Arbitrary<Op[]> => {
  const key = fc.integer({ min: 0, max: pool - 1 })
  return fc.array(
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('set' as const),
          key,
          tat: fc.integer({ min: 1, max: 100 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('sweep' as const),
          below: fc.integer({ min: 1, max: 100 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('evict' as const), count: fc.integer({ min: 0, max: 10 }) }),
      },
    ),
    { minLength: 20, maxLength: 400, size: 'max' },
  )
}

const cases = [
  { maxEntries: 8, pool: 14 },
  { maxEntries: 64, pool: 120 },
]

for (const { maxEntries, pool } of cases)
  test(`holds exactly what a Map would, through sets, sweeps and evictions (a table for ${maxEntries})`, () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), {
          minLength: pool,
          maxLength: pool,
        }),
        keyOps(pool),
        (keys, ops) => {
          const table = createIpv4BucketTable(maxEntries)
          const model = new Map<number, number>()
          for (const o of ops) {
            if (o.kind === 'set') {
              table.set(keys[o.key]!, o.tat)
              model.set(keys[o.key]!, o.tat)
            } else if (o.kind === 'sweep') {
              const removed = table.sweep((tat) => tat < o.below)
              let expected = 0
              for (const [k, tat] of model)
                if (tat < o.below) {
                  model.delete(k)
                  expected++
                }
              assert.equal(removed, expected)
            } else {
              const before = table.size()
              table.evict(o.count)
              assert.equal(table.size(), Math.max(0, before - o.count))
              // whatever went is gone; whatever stayed kept its TAT
              for (const [k, tat] of model) {
                const got = table.get(k)
                if (got === undefined) model.delete(k)
                else assert.equal(got, tat)
              }
            }
            assert.equal(table.size(), model.size)
            for (const [k, tat] of model) assert.equal(table.get(k), tat)
          }
          for (const k of keys) if (!model.has(k)) assert.equal(table.get(k), undefined)
        },
      ),
      { numRuns: 300 },
    )
  })

test('clear() empties the table', () => {
  const table = createIpv4BucketTable(100)
  for (let k = 0; k < 50; k++) table.set(k * 7919, k + 1)
  table.clear()
  assert.equal(table.size(), 0)
  assert.equal(table.get(7919), undefined)
})
