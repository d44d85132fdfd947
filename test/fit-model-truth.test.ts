// No parameter fitted on truth (decisions §15, issue 29): real data has no oracle, so neither the fit
// (tools/fit-model.ts) nor the model it fits (src/model/) may reach the sandbox's hidden truth
// (src/feeds/sim/oracle.ts), directly or through any module they import. biome's import rules see one
// file at a time; this follows the whole import graph.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'

const ROOT = path.join(import.meta.dirname, '..')
const ORACLE = path.join(ROOT, 'src', 'feeds', 'sim', 'oracle.ts')
// static `import … from '…'`, `export … from '…'` and `import('…')` of a relative module
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g

/** The chain of imports from `entry` to `target`, or null when `target` is out of reach. */
function chainTo(entry: string, target: string): string[] | null {
  const seen = new Set<string>([entry])
  const queue: string[][] = [[entry]]
  while (queue.length > 0) {
    const chain = queue.shift() as string[]
    const file = chain.at(-1) as string
    for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const next = path.resolve(path.dirname(file), m[1] as string)
      if (next === target) return [...chain, next]
      if (seen.has(next) || !next.endsWith('.ts')) continue
      seen.add(next)
      queue.push([...chain, next])
    }
  }
  return null
}

const relative = (chain: string[]): string => chain.map((f) => path.relative(ROOT, f)).join(' → ')

describe('no parameter fitted on truth', () => {
  const modelFiles = readdirSync(path.join(ROOT, 'src', 'model'))
    .filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))
    .map((n) => path.join(ROOT, 'src', 'model', n))
  for (const entry of [path.join(ROOT, 'tools', 'fit-model.ts'), ...modelFiles]) {
    it(`${path.relative(ROOT, entry)} never reaches the sandbox's oracle`, () => {
      const chain = chainTo(entry, ORACLE)
      assert.equal(chain, null, chain ? relative(chain) : '')
    })
  }

  it('the check finds the oracle where it is imported (the model card judges against it)', () => {
    const chain = chainTo(path.join(ROOT, 'tools', 'model-card.ts'), ORACLE)
    assert.ok(chain, 'tools/model-card.ts reaches the oracle through evaluate')
  })
})
