// `model:sweep` writes each held-out look's table into docs/model.md from the figures its jobs keep
// in the look's JSON. A reader checks the gates against that table, so every committed block must be
// exactly what the JSON gives, and its pooling must be the one the pooled table uses.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, it } from 'node:test'
import { type Diff, type JobFigures, pooledDiff, sweepTable } from '../tools/sweep-table.ts'

const ROOT = path.join(import.meta.dirname, '..')
const CARD = readFileSync(path.join(ROOT, 'docs/model.md'), 'utf8')

/** Each look the tool writes: its markers in docs/model.md and its JSON. */
const LOOKS = {
  'model:sweep': 'docs/model-sweep.json',
  'model:sweep:polymarket': 'docs/model-sweep-polymarket.json',
  'model:card:polymarket': 'docs/model-card-polymarket.json',
  'model:card:polymarket:shrink30': 'docs/model-card-polymarket-shrink30.json',
  'model:card:polymarket:fresh': 'docs/model-card-polymarket-fresh.json',
  'model:card:polymarket:fresh-floor': 'docs/model-card-polymarket-fresh-floor.json',
  'model:card:fresh': 'docs/model-card-fresh.json',
  'model:card:polymarket:fourth': 'docs/model-card-polymarket-fourth.json',
  'model:card:polymarket:fifth': 'docs/model-card-polymarket-fifth.json',
} as const

function block(marker: string): string {
  const start = `<!-- ${marker} start -->\n`
  const a = CARD.indexOf(start)
  const b = CARD.indexOf(`\n<!-- ${marker} end -->`)
  assert.ok(a >= 0 && b > a, `docs/model.md has the ${marker} markers`)
  return CARD.slice(a + start.length, b)
}

/** One seed of one crowd, every figure the table reads. */
function figures(over: Partial<JobFigures> & Pick<JobFigures, 'preset' | 'seed'>): JobFigures {
  const d: Diff = { value: -0.001, se: 0.0005, readings: 100 }
  return {
    readings: 100,
    contests: 10,
    v2Version: 'settle-mean-t-2.aaaaaaaa',
    v2MinusRecal: d,
    aloneMinusRecal: d,
    recalMinusOracle: d,
    v2MinusOracle: d,
    logLoss: { v2: 0.4, v1: 0.5, oracleV2: 0.4, oracleV1: 0.4, recal: 0.41 },
    slopes: { '1–2 min': 1 },
    tails: [],
    wallMs: 60_000,
    ...over,
  }
}

const RUN = { from: '2026-09-01', days: 10, trainDays: 3, jobs: 2 }
const row = (table: string, crowd: string) => table.split('\n').find((l) => l.startsWith(`| \`${crowd}\` | `))

describe('model:sweep tables', () => {
  for (const [marker, file] of Object.entries(LOOKS)) {
    it(`${marker}: the committed block is the table its JSON (${file}) gives`, () => {
      const committed = block(marker)
      const head =
        /^Held-out seeds ([\d, ]+), (\d+) days each from (\S+) \(the first (\d+) trains .* on (\d+) jobs\.\n/.exec(
          committed,
        )
      assert.ok(head, `${marker} opens with the run's header`)
      const look = JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as JobFigures[]
      const presets = [...new Set(look.map((f) => f.preset))]
      const seeds = head[1]!.split(', ').map(Number)
      const run = { from: head[3]!, days: Number(head[2]), trainDays: Number(head[4]), jobs: Number(head[5]) }
      assert.equal(look.length, presets.length * seeds.length, 'every crowd has every seed')
      assert.equal(sweepTable(presets, seeds, look, run), committed)
    })
  }

  it('pools seeds weighted by readings, their clustered SEs as independent', () => {
    const p = pooledDiff([
      { value: 0.01, se: 0.003, readings: 1 },
      null,
      { value: -0.02, se: 0.004, readings: 3 },
    ])
    assert.ok(p)
    assert.equal(p.readings, 4)
    assert.ok(Math.abs(p.value - -0.0125) < 1e-15, String(p.value))
    assert.ok(Math.abs(p.se! - Math.sqrt(0.25 ** 2 * 0.003 ** 2 + 0.75 ** 2 * 0.004 ** 2)) < 1e-15)
    assert.equal(pooledDiff([{ value: 1, se: null, readings: 2 }])?.se, null, 'an unknown SE is not made up')
    assert.equal(pooledDiff([null]), null)
  })

  it('counts the gap closed reading by reading, as the pooled table does, not seed by seed', () => {
    // seed 1 closes all of its gap on 1 reading, seed 2 none of the same gap on 4: 20 %, not 50 %
    const table = sweepTable(
      ['ewma'],
      [1, 2],
      [
        figures({ preset: 'ewma', seed: 1, readings: 1 }),
        figures({
          preset: 'ewma',
          seed: 2,
          readings: 4,
          logLoss: { ...figures({ preset: 'x', seed: 0 }).logLoss, v2: 0.5 },
        }),
      ],
      RUN,
    )
    assert.match(row(table, 'ewma') ?? '', /\| 20\.0 % \|$/)
  })

  it('shows no gap where v1 is no worse than the referee, and none where a seed has no referee', () => {
    const level = figures({
      preset: 'a',
      seed: 1,
      logLoss: { v2: 0.4, v1: 0.4, oracleV2: 0.4, oracleV1: 0.4, recal: null },
    })
    const blind = figures({
      preset: 'b',
      seed: 1,
      logLoss: { v2: 0.4, v1: 0.5, oracleV2: null, oracleV1: null, recal: null },
    })
    const table = sweepTable(['a', 'b'], [1], [level, blind], RUN)
    assert.match(row(table, 'a') ?? '', /\| – \|$/)
    assert.match(row(table, 'b') ?? '', /\| – \|$/)
  })

  it('names the model version crowd by crowd where the crowds were run on different files', () => {
    const one = sweepTable(
      ['a', 'b'],
      [1],
      [figures({ preset: 'a', seed: 1 }), figures({ preset: 'b', seed: 1 })],
      RUN,
    )
    assert.match(one, /; v2 = `settle-mean-t-2\.aaaaaaaa`\. /)
    const mixed = sweepTable(
      ['a', 'b'],
      [1],
      [
        figures({ preset: 'a', seed: 1 }),
        figures({ preset: 'b', seed: 1, v2Version: 'settle-mean-t-2.bbbbbbbb' }),
      ],
      RUN,
    )
    assert.match(mixed, /v2 = `settle-mean-t-2\.aaaaaaaa` for `a`, `settle-mean-t-2\.bbbbbbbb` for `b`\./)
  })

  it('refuses a card without the look’s markers before it runs a job', () => {
    const work = path.join(mkdtempSync(path.join(tmpdir(), 'cs-sweep-')), 'work')
    const r = spawnSync(
      process.execPath,
      ['tools/model-card-sweep.ts', '--marker', 'model:nowhere', '--work', work],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    )
    assert.equal(r.status, 2, r.stderr)
    assert.equal(
      r.stderr,
      'model:sweep: docs/model.md has no <!-- model:nowhere start --> … <!-- model:nowhere end --> markers\n',
    )
    assert.equal(existsSync(work), false, 'no work was started')
  })
})
