// The quant tools refuse a mistyped option in one line before any work, and list their options on
// --help: a run of an hour must not start on a flag it did not understand, nor die in a stack trace.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, it } from 'node:test'

const ROOT = path.join(import.meta.dirname, '..')
const TOOLS = {
  'fit:model': 'tools/fit-model.ts',
  'model:card': 'tools/model-card.ts',
  'model:card:real': 'tools/model-card-real.ts',
  'model:card:real:polymarket': 'tools/model-card-real-polymarket.ts',
  'model:sweep': 'tools/model-card-sweep.ts',
  'model:floor': 'tools/model-floor.ts',
  'model:tails': 'tools/model-tails.ts',
  'model:jumps': 'tools/model-jumps.ts',
  'model:candidate': 'tools/model-candidate.ts',
  'model:pooled': 'tools/model-pooled.ts',
  'model:by-hour': 'tools/model-by-hour.ts',
  'real-data-tapes': 'tools/real-data-tapes.ts',
} as const

const run = (file: string, ...args: string[]) =>
  spawnSync(process.execPath, [file, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })

describe('the quant tools’ options', () => {
  for (const [name, file] of Object.entries(TOOLS)) {
    it(`${name}: an unknown option is one line naming the tool, exit 2`, () => {
      const r = run(file, '--seedz', '2001')
      assert.equal(r.status, 2, r.stderr)
      assert.equal(r.stdout, '')
      assert.match(
        r.stderr,
        new RegExp(`^${name}: Unknown option '--seedz'.*--help lists the options\\)\\n$`),
      )
    })

    it(`${name}: --help lists every option with its default, exit 0`, () => {
      const r = run(file, '--help')
      assert.equal(r.status, 0, r.stderr)
      assert.match(r.stdout, new RegExp(`^${name}: \\S`))
      assert.match(r.stdout, /\n {2}--\S+ <value>/)
      assert.match(r.stdout, / {2}--help, -h\n$/)
    })
  }

  it('a string option given no value says so', () => {
    const r = run(TOOLS['model:card'], '--days')
    assert.equal(r.status, 2)
    assert.match(r.stderr, /^model:card: Option '--days <value>' argument missing/)
  })
})
