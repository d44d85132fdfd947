// No parameter fitted on truth (decisions §15, issue 29; signals.md §3, §6): real data has no oracle,
// so neither the fit (tools/fit-model.ts) nor the model it fits (src/model/) may reach the sandbox's
// hidden truth, directly or through any module they import. The truth is in two kinds of module: the
// referees (src/feeds/sim/oracle.ts and the exact Monte Carlo one, exact-oracle.ts), and the doors to
// the sandbox's own state (sim-world.ts's world and index-path.ts's index, whose hidden state — the
// true volatility, the basis — any holder can read). The fit may load the sandbox only as the engine
// does: a venue and a price feed built from a seed (sim-venue.ts, sim-price-feed.ts), which show what
// a recording of a real venue would hold. biome's import rules see one file at a time; this follows
// the whole import graph (test/support/import-graph.ts).
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { chainTo, importsOf, loadedBy, ROOT, relative } from './support/import-graph.ts'

const SIM = path.join(ROOT, 'src', 'feeds', 'sim')
const REFEREES = new Set(['oracle.ts', 'exact-oracle.ts'].map((n) => path.join(SIM, n)))
const DOORS = new Set(
  ['sim-world.ts', 'index-path.ts', ...['oracle.ts', 'exact-oracle.ts']].map((n) => path.join(SIM, n)),
)
const insideSim = (file: string): boolean => file.startsWith(SIM + path.sep)

/** The first value import, by a module `entry` loads from outside the sandbox, of a door to its state. */
function doorOpenedBy(entry: string): string | null {
  for (const file of loadedBy(entry)) {
    if (insideSim(file)) continue
    const door = importsOf(file).find((i) => !i.typeOnly && DOORS.has(i.to))
    if (door) return relative([file, door.to])
  }
  return null
}

const modelFiles = readdirSync(path.join(ROOT, 'src', 'model'))
  .filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))
  .map((n) => path.join(ROOT, 'src', 'model', n))
const fitEntries = [path.join(ROOT, 'tools', 'fit-model.ts'), ...modelFiles]

describe('no parameter fitted on truth', () => {
  for (const entry of fitEntries) {
    it(`${path.relative(ROOT, entry)} never reaches the sandbox's referees`, () => {
      const chain = chainTo(entry, (f) => REFEREES.has(f))
      assert.equal(chain, null, chain ? relative(chain) : '')
    })
    it(`${path.relative(ROOT, entry)} sees the sandbox only through a venue and a feed`, () => {
      assert.equal(doorOpenedBy(entry), null)
    })
  }

  it('the checks find the truth where it is taken (the model card judges against the oracle)', () => {
    const card = path.join(ROOT, 'tools', 'model-card.ts')
    assert.ok(
      chainTo(card, (f) => REFEREES.has(f)),
      'tools/model-card.ts reaches the oracle through evaluate',
    )
    assert.ok(doorOpenedBy(card), 'tools/model-card.ts opens a door to the sandbox state')
  })

  it('reads a type-only import as loading nothing, a value import as loading its module', () => {
    const readings = importsOf(path.join(ROOT, 'src', 'feeds', 'sim-tape', 'sim-tape.ts'))
    const world = readings.find((i) => i.to === path.join(SIM, 'sim-world.ts'))
    assert.equal(world?.typeOnly, true, 'sim-tape.ts takes a world it is given, by type only')
    const venue = importsOf(path.join(SIM, 'sim-venue.ts')).find(
      (i) => i.to === path.join(SIM, 'sim-world.ts'),
    )
    assert.equal(venue?.typeOnly, false, 'sim-venue.ts builds its world')
  })
})
