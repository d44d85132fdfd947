// `npm run model:pooled`: the held-out looks the card keeps, pooled by venue and crowd. The card's
// block must be what the tool prints from the committed JSON, and a pooled row must be its looks'
// sums — a reader checks a gate against these figures.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { gapClosed } from '../tools/model-pooled.ts'

const ROOT = path.join(import.meta.dirname, '..')

let output: string | undefined
/** The tool's table, as `--print` writes it (run once for the file). */
function printed(): string {
  if (output !== undefined) return output
  const r = spawnSync(process.execPath, ['tools/model-pooled.ts', '--print'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  })
  assert.equal(r.status, 0, r.stderr)
  output = r.stdout
  return output
}

/** "39.6 → 37 (0.93)" → [39.6, 37] */
const sums = (text: string): [number, number][] =>
  [...text.matchAll(/([\d.]+) → (\d+) \(/g)].map((m) => [Number(m[1]), Number(m[2])])

describe('model:pooled', () => {
  it('weighs each seed’s share of the gap by its readings, not seed by seed', () => {
    // seed a closes all of its small gap, seed b none of its large one: 0.1 of 0.5 in all
    const share = gapClosed([
      { readings: 1, v1: 0.5, v2: 0.4, oracle: 0.4 },
      { readings: 4, v1: 0.5, v2: 0.5, oracle: 0.4 },
    ])
    assert.ok(Math.abs(share - 0.2) < 1e-12, String(share))
  })

  it('pools each bucket as the sum of its looks, claimed and realised', () => {
    const rows = printed()
      .split('\n')
      .filter((l) => / % (up|down) \|/.test(l))
    assert.ok(rows.length >= 16, `${rows.length} bucket rows`)
    for (const row of rows) {
      const cells = row.split(' | ')
      const [each, pooled] = [sums(cells[4]!), sums(cells[5]!)]
      assert.equal(pooled.length, 1, row)
      const [claimed, realised] = pooled[0]!
      // each look's claimed is printed to one decimal, so their sum may differ by a rounding a look
      assert.ok(Math.abs(each.reduce((s, [c]) => s + c, 0) - claimed) <= 0.05 * each.length + 0.05, row)
      assert.equal(
        each.reduce((s, [, r]) => s + r, 0),
        realised,
        row,
      )
    }
  })

  it('is what the model card shows', () => {
    const card = readFileSync(path.join(ROOT, 'docs/model.md'), 'utf8')
    const block = /<!-- model:pooled start -->\n([\s\S]*?)\n<!-- model:pooled end -->/.exec(card)
    assert.ok(block, 'docs/model.md has the model:pooled block')
    assert.equal(`${block[1]}\n`, printed(), 'run `npm run model:pooled` to rewrite it')
  })
})
