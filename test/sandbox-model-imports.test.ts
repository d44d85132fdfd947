// The sandbox never imports model code (decisions §3; signals.md §3), however indirectly. biome's
// rule on src/feeds/sim/** (test/sim-sandbox.test.ts proves it fires) sees one file's own imports,
// and the sandbox may import domain/: a domain module that re-exported the model's arithmetic would
// carry it into the simulator with the linter content. This follows every chain of value imports.
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { loadedBy, ROOT, relative } from './support/import-graph.ts'

const MODEL_DIR = path.join(ROOT, 'src', 'model') + path.sep
const V1 = path.join(ROOT, 'src', 'domain', 'model.ts')
const isModelCode = (file: string): boolean => file.startsWith(MODEL_DIR) || file === V1

/** A chain of value imports from `entry` to model code, or null. */
function modelChain(entry: string): string | null {
  const from = new Map<string, string>()
  for (const file of loadedBy(entry, (parent, child) => from.set(child, parent))) {
    if (!isModelCode(file)) continue
    const chain = [file]
    while (from.has(chain[0] as string)) chain.unshift(from.get(chain[0] as string) as string)
    return relative(chain)
  }
  return null
}

const simDir = path.join(ROOT, 'src', 'feeds', 'sim')
const simFiles = readdirSync(simDir)
  .filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))
  .map((n) => path.join(simDir, n))

describe('the sandbox loads no model code', () => {
  for (const file of simFiles) {
    it(`${path.relative(ROOT, file)} reaches no model code through any import`, () => {
      assert.equal(modelChain(file), null)
    })
  }

  it('the check finds model code where it is loaded', () => {
    assert.match(modelChain(path.join(ROOT, 'test', 'sim-sandbox.test.ts')) ?? '', /src\/domain\/model\.ts$/)
    assert.match(modelChain(path.join(ROOT, 'src', 'cli', 'replay-command.ts')) ?? '', /src\/model\//)
  })
})
