// The settings table is the one home of every setting: loadConfig reads exactly its names, and the
// README's configuration tables list exactly them, with the same defaults.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { loadConfig } from './config.ts'
import { SETTINGS, type Setting } from './settings.ts'

const README = readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8')

/** Rows of the README's tables whose first cell names variables: name → its default cell. */
function readmeDefaults(): Map<string, string> {
  const defaults = new Map<string, string>()
  for (const line of README.split('\n')) {
    const cells = line.split(' | ')
    if (!line.startsWith('| `') || cells.length < 3) continue
    const names = [...cells[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)
    if (names.length === 0 || !/^\| `[A-Z][A-Z0-9_]+`/.test(line)) continue
    const cell = cells[1]!.trim()
    // `A`, `B` | `1`, `2` and `A` / `B` | `1` / `2`: one default each; otherwise one for all
    const parts = cell.split(/(?<=`), (?=`)| \/ /)
    names.forEach((name, i) => {
      defaults.set(name, parts.length === names.length ? parts[i]!.trim() : cell)
    })
  }
  return defaults
}

const documented = (s: Setting): string => s.readme ?? `\`${s.value}\``

describe('settings table', () => {
  it('is what loadConfig reads: every name in it, and no other', () => {
    const asked = new Set<string>()
    const env = new Proxy({} as Record<string, string | undefined>, {
      get(_, name) {
        if (typeof name === 'string') asked.add(name)
        return undefined
      },
    })
    loadConfig(env)
    assert.deepEqual([...asked].sort(), Object.keys(SETTINGS).sort())
  })

  it("is the README's configuration tables: the same names, the same defaults", () => {
    const readme = readmeDefaults()
    assert.deepEqual([...readme.keys()].sort(), Object.keys(SETTINGS).sort())
    for (const [name, setting] of Object.entries(SETTINGS) as [string, Setting][]) {
      assert.equal(readme.get(name), documented(setting), name)
    }
  })

  it('gives every defaulted setting a value loadConfig accepts', () => {
    const env = Object.fromEntries(
      (Object.entries(SETTINGS) as [string, Setting][])
        .filter(([, s]) => s.value !== null)
        .map(([name, s]) => [name, s.value as string]),
    )
    const given = loadConfig(env)
    assert.deepEqual(given, { ...loadConfig({}), simSeed: given.simSeed })
  })
})
