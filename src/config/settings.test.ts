// The settings table is the one home of every setting: loadConfig reads exactly its names, and every
// default in it is a value its own parser accepts. (The docs written from it: test/settings-docs.test.ts.)
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadConfig } from './config.ts'
import { SETTING_GROUPS, SETTINGS, type Setting } from './settings.ts'

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

  it('gives every defaulted setting a value loadConfig accepts, the same as leaving it unset', () => {
    const env = Object.fromEntries(
      (Object.entries(SETTINGS) as [string, Setting][])
        .filter(([, s]) => s.default !== null)
        .map(([name, s]) => [name, s.default as string]),
    )
    const given = loadConfig(env)
    assert.deepEqual(given, { ...loadConfig({}), simSeed: given.simSeed })
  })

  it('puts every setting in exactly one group of the docs', () => {
    const grouped = Object.values(SETTING_GROUPS).flatMap((g) => Object.keys(g.settings))
    assert.deepEqual([...grouped].sort(), Object.keys(SETTINGS).sort())
  })

  it('documents every setting in one line', () => {
    for (const [name, s] of Object.entries(SETTINGS) as [string, Setting][]) {
      assert.match(s.doc, /^[^\n]+$/, name)
      assert.match(s.parser.accepts, /^[^\n]+$/, name)
    }
  })
})
