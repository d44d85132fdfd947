// `npm run model:by-hour`: where on the clock two parameter files part, on one seed's Polymarket
// sandbox tape. docs/model.md reads seeds 3001 and 5002 with it: a change to one hour must show in
// that hour alone, and a file against itself must move nothing.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { tempDir } from './support/service-process.ts'
import { writePolymarketDayTape } from './support/sim-tape.ts'

const ROOT = path.join(import.meta.dirname, '..')
const SHIPPED = path.join(ROOT, 'src/model/params/settle-mean-t-2.json')

describe('model:by-hour', () => {
  const tmp = tempDir('cs-by-hour-')
  const tape = path.join(tmp.dir, 'day.ndjson.gz')
  const wider = path.join(tmp.dir, 'wider-hour-3.json')
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['tools/model-by-hour.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    })
  /** "| 3 | 48 | +0.012; 2.50 | 7.10 → 7.40 |" → its cells */
  const rows = (out: string) =>
    new Map(
      out
        .split('\n')
        .filter((l) => /^\| (\d+|all) \| \d+ \|/.test(l))
        .map((l) => {
          const [hour, readings, outcomes, excess] = l.split(' | ').map((c) => c.replace(/^\| | \|$/g, ''))
          const [from, to] = (excess as string).split(' → ').map(Number)
          return [
            hour as string,
            {
              readings: Number(readings),
              outcomes: outcomes as string,
              from: from as number,
              to: to as number,
            },
          ]
        }),
    )

  before(() => {
    writePolymarketDayTape(tape, 11, '2026-11-20T00:00:00Z')
    const params = JSON.parse(readFileSync(SHIPPED, 'utf8'))
    params.venuePools.polymarket.basisVarianceByHour[3] *= 16
    writeFileSync(wider, JSON.stringify(params))
  })
  after(() => tmp.remove())

  it('moves nothing when the shipped file meets itself', () => {
    const r = run('--tape', tape, '--seed', '11', '--judged-from', '2026-11-20T02:00:00Z', '--base', SHIPPED)
    assert.equal(r.status, 0, r.stderr)
    const hours = rows(r.stdout)
    assert.equal(hours.get('0'), undefined, 'windows opening before --judged-from are not judged')
    assert.equal(
      hours.get('all')?.readings,
      [...hours].filter(([h]) => h !== 'all').reduce((s, [, x]) => s + x.readings, 0),
    )
    for (const [hour, x] of hours) {
      assert.equal(x.outcomes, '+0.000; 0.00', `hour ${hour}`)
      assert.equal(x.from, x.to, `hour ${hour}`)
    }
    assert.match(
      r.stdout,
      /by outcomes: base ([\d.]+ %), candidate \1; by expectation \(no outcome luck\): base ([\d.]+ %), candidate \2 \(its model alone, before the pool, [\d.]+ %\)\n$/,
    )
  })

  it('shows a file that prices one hour’s level error wider in that hour alone', () => {
    const r = run(
      '--tape',
      tape,
      '--seed',
      '11',
      '--judged-from',
      '2026-11-20',
      '--base',
      SHIPPED,
      '--candidate',
      wider,
    )
    assert.equal(r.status, 0, r.stderr)
    const hours = rows(r.stdout)
    assert.equal(hours.size, 25, 'every hour of the day and the total')
    const three = hours.get('3')
    assert.ok(three && three.from !== three.to, `hour 3 moved: ${JSON.stringify(three)}`)
    for (const [hour, x] of hours)
      if (hour !== '3' && hour !== 'all') {
        assert.equal(x.outcomes, '+0.000; 0.00', `hour ${hour}`)
        assert.equal(x.from, x.to, `hour ${hour}`)
      }
    assert.match(r.stdout, /The windows of hour 3 /)
    assert.match(r.stdout, /^seed 11: base settle-mean-t-2\.(\w{8}), candidate settle-mean-t-2\.(?!\1)\w{8};/)
  })

  it('refuses a run without its tape or base, and a parameter file the model cannot use, in one line', () => {
    const bare = run('--seed', '11')
    assert.equal(bare.status, 2)
    assert.match(bare.stderr, /^model:by-hour: --tape, --seed, --judged-from and --base are needed/)
    const uneven = run('--tape', tape, '--seed', '11,12', '--judged-from', '2026-11-20', '--base', SHIPPED)
    assert.equal(uneven.status, 2)
    assert.equal(uneven.stderr, 'model:by-hour: 1 tapes and 2 seeds: one tape a seed\n')
    const bad = path.join(tmp.dir, 'bad.json')
    writeFileSync(bad, '{"model": "settle-mean-t-2"}')
    const r = run('--tape', tape, '--seed', '11', '--judged-from', '2026-11-20', '--base', bad)
    assert.equal(r.status, 2)
    assert.match(
      r.stderr,
      new RegExp(`^model:by-hour: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .+\\n$`),
    )
  })
})
