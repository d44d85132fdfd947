// `model:floor` writes docs/model.md's "What the proxy cannot know" tables and the JSON of the run
// beside them. A reader checks the gap gate against those tables, so the committed block must be
// exactly what the committed JSON gives, and a figure must land in its own column.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import type { Estimate } from '../src/domain/scores.ts'
import { floorTable, PRICINGS, type SeedFloor } from '../tools/floor-table.ts'

const ROOT = path.join(import.meta.dirname, '..')

function block(card: string, marker: string): string {
  const start = `<!-- ${marker} start -->\n`
  const a = card.indexOf(start)
  const b = card.indexOf(`\n<!-- ${marker} end -->`)
  assert.ok(a >= 0 && b > a, `docs/model.md has the ${marker} markers`)
  return card.slice(a + start.length, b)
}

/** One seed whose every figure is `e`, but the ones `over` names. */
function seedFloor(seed: number, over: Partial<SeedFloor> = {}): SeedFloor {
  const e: Estimate = { value: 0.001, se: 0.0002 }
  const all = Object.fromEntries(PRICINGS.map((k) => [k, e])) as SeedFloor['excess']
  const { v1: _, ...closers } = all
  return {
    seed,
    readings: 100,
    contests: 10,
    indexError: { mean: 0, sd: 0.53e-4 },
    excess: all,
    expected: all,
    proxyCost: e,
    againstProxyReferee: e,
    bookRead: { outcomes: e, expected: e },
    closed: closers,
    closedExpected: closers,
    ...over,
  }
}

describe('model:floor tables', () => {
  it('the committed block is the table docs/model-floor.json gives', () => {
    const card = readFileSync(path.join(ROOT, 'docs/model.md'), 'utf8')
    const json = JSON.parse(readFileSync(path.join(ROOT, 'docs/model-floor.json'), 'utf8')) as {
      version: string
      floors: SeedFloor[]
    }
    const committed = block(card, 'model:floor')
    // the run's span and wall time are said in the block's first line only
    const span = /(\d+) days each from (\d{4}-\d{2}-\d{2})/.exec(committed)
    const minutes = /About (\d+) min on one core/.exec(committed)
    assert.ok(span && minutes, 'the block says the run’s span and its wall time')
    const made = floorTable(json.floors, {
      from: span[2] as string,
      days: Number(span[1]),
      minutes: Number(minutes[1]),
      version: json.version,
    })
    assert.equal(committed, made)
  })

  it('puts each seed’s book read and shares in their own columns', () => {
    const table = floorTable(
      [
        seedFloor(7, {
          bookRead: {
            outcomes: { value: -0.00012, se: 0.00004 },
            expected: { value: -0.00034, se: 0.00005 },
          },
          closedExpected: {
            ...seedFloor(7).closedExpected,
            'v2 reading the index from the book': { value: 0.836, se: 0.005 },
          },
        }),
      ],
      { from: '2026-09-01', days: 3, minutes: 4, version: 'settle-mean-t-2.aaaaaaaa' },
    )
    assert.match(table, /^Held-out seeds 7, 3 days each from 2026-09-01 .* v2 = `settle-mean-t-2\.aaaaaaaa`/)
    assert.match(table, /About 4 min on one core\./)
    const bookRow = table.split('\n').at(-1) as string
    assert.equal(
      bookRow,
      '| 7 | −0.00012 ± 0.00004 | −0.00034 ± 0.00005 | 0.1 ± 0.0 % / 83.6 ± 0.5 % | 0.1 ± 0.0 % / 0.1 ± 0.0 % |',
    )
  })
})
