// The release after the backfill: garbage a burst left in the heap goes back to the system.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { releaseHeap } from './heap-release.ts'

test('heap release › the heap a burst of garbage grew is handed back', () => {
  // A burst like the backfill's: many short-lived objects, far more than the heap held before.
  const before = process.memoryUsage().heapTotal
  let kept: number[][] = []
  for (let i = 0; i < 40; i++) kept.push(Array.from({ length: 250_000 }, (_, j) => j + 0.5))
  const grown = process.memoryUsage().heapTotal
  assert.ok(grown - before > 50 * 1024 * 1024, 'the burst grew the heap')
  kept = []
  const release = releaseHeap()
  assert.ok(release, 'Node 24 offers a full collection')
  assert.equal(kept.length, 0)
  const after = process.memoryUsage().heapTotal
  assert.ok(after - before < (grown - before) / 4, `heapTotal ${before} → ${grown} → ${after}`)
  assert.ok(release.rssAfterMiB < release.rssBeforeMiB)
})
