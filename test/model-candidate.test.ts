// `npm run model:candidate` (docs/model.md, "The level error's tail"): a candidate parameter file
// judged against the shipped one on Polymarket validation tapes, through the real tool. A file judged
// against itself gains nothing, so the rule's parts that ask for an improvement are not met.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { tempDir } from './support/service-process.ts'
import { writePolymarketDayTape } from './support/sim-tape.ts'

const ROOT = path.join(import.meta.dirname, '..')
const TOOL = path.join(ROOT, 'tools', 'model-candidate.ts')
const SHIPPED = path.join(ROOT, 'src', 'model', 'params', 'settle-mean-t-2.json')

const tmp = tempDir('cs-model-candidate-')
after(() => tmp.remove())
const run = (args: string[]) => spawnSync(process.execPath, [TOOL, ...args], { encoding: 'utf8' })

describe('model:candidate', () => {
  const tapes = path.join(tmp.dir, 'ewma-4010')
  before(() => {
    mkdirSync(tapes, { recursive: true })
    writePolymarketDayTape(path.join(tapes, 'day.ndjson.gz'), 4010)
  })

  it('judges a file against the shipped one on the same readings, and says which parts of the rule it meets', () => {
    const json = path.join(tmp.dir, 'result.json')
    const r = run([
      '--candidate',
      SHIPPED,
      '--seeds',
      '4010',
      '--polymarket-tapes',
      `ewma=${tapes}`,
      '--json',
      json,
    ])
    assert.equal(r.status, 0, r.stderr)
    const result = JSON.parse(readFileSync(json, 'utf8'))
    assert.equal(result.shipped, result.candidate)
    const [ewma] = result.results
    assert.equal(ewma.crowd, 'ewma')
    assert.ok(ewma.readings > 1000, `${ewma.readings} readings`)
    // the same file on the same readings: no difference in any reading's outcome
    assert.deepEqual(ewma.cells['candidate v2'].outcomes, { value: 0, se: 0 })
    assert.equal(ewma.cells['candidate v2'].excess, ewma.cells['shipped v2'].excess)
    assert.deepEqual(result.verdict, { noCrowdWorseBy1Se: true, excessLower: false, longShotsCloser: false })
    assert.match(r.stdout, /The rule's three parts: met, not met, not met\./)
  })

  it('answers a missing candidate, a file that is not parameters or no tapes with one line and exit 2', () => {
    const missing = run(['--seeds', '4010', '--polymarket-tapes', `ewma=${tapes}`])
    assert.equal(missing.status, 2)
    assert.equal(missing.stderr.trim(), 'model:candidate: --candidate FILE: the parameter file to judge')
    const notParams = path.join(tmp.dir, 'not-params.json')
    writeFileSync(notParams, '{"model": "x"}')
    const bad = run(['--candidate', notParams, '--seeds', '4010', '--polymarket-tapes', `ewma=${tapes}`])
    assert.equal(bad.status, 2)
    assert.match(bad.stderr.trim(), /^model:candidate: --candidate .*not-params\.json: model parameters: /)
    const none = run(['--candidate', SHIPPED, '--seeds', '4010'])
    assert.equal(none.status, 2)
    assert.match(none.stderr.trim(), /^model:candidate: --polymarket-tapes .* or --kalshi /)
    const unknown = run(['--candidate', SHIPPED, '--kalshi', 'no-such-crowd=2001'])
    assert.equal(unknown.status, 2)
    assert.match(unknown.stderr.trim(), /^model:candidate: --kalshi no-such-crowd: /)
    const noSeeds = run(['--candidate', SHIPPED, '--kalshi', 'ewma=x'])
    assert.equal(noSeeds.status, 2)
    assert.match(noSeeds.stderr.trim(), /^model:candidate: --kalshi ewma must be validation seeds/)
  })

  it('fails a file that reads the Kalshi book backwards, on the seed and crowd named, by the referee', () => {
    // a crowd map with its slope the wrong way round: the book read as saying the opposite
    const shipped = JSON.parse(readFileSync(SHIPPED, 'utf8'))
    const backwards = path.join(tmp.dir, 'backwards.json')
    const maps = Array.from({ length: 14 }, (_, i) => ({
      minutesLeft: i + 1,
      intercept: 0,
      slope: -1,
      noise: 0.01,
    }))
    writeFileSync(backwards, JSON.stringify({ ...shipped, bookRead: maps }))
    const json = path.join(tmp.dir, 'kalshi.json')
    const r = run(['--candidate', backwards, '--kalshi', 'ewma=2001', '--days', '1', '--json', json])
    assert.equal(r.status, 0, r.stderr)
    const [row] = JSON.parse(readFileSync(json, 'utf8')).results
    assert.equal(row.crowd, 'Kalshi ewma (2001)')
    assert.ok(row.readings > 1000, `${row.readings} readings`)
    const worse = row.cells['candidate v2'].expected
    assert.ok(worse.value > 2 * worse.se, `${worse.value} ± ${worse.se}`)
    // the model alone does not read the book: the same on every reading
    assert.deepEqual(row.cells['candidate alone'].expected, { value: 0, se: 0 })
  })
})
