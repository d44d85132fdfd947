// The README's settings tables and .env.example are written from src/config/settings.ts by
// `npm run settings:docs`; these tests fail when what is committed differs, and check that the
// example file, uncommented, is a configuration the program accepts with every default.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, it } from 'node:test'
import { parseEnv } from 'node:util'
import { loadConfig } from '../src/config/config.ts'
import { SETTINGS } from '../src/config/settings.ts'
import { DOCS_COMMAND, envExample, settingsTable, withSettingsTables } from '../src/config/settings-docs.ts'
import { settingsDocs } from '../tools/settings-docs.ts'

describe('settings docs', () => {
  for (const { file, current, expected } of settingsDocs()) {
    it(`${file} is what the settings table writes`, () => {
      assert.ok(current !== null, `${file} is missing: run \`${DOCS_COMMAND}\``)
      assert.ok(
        current === expected,
        `${file} differs from src/config/settings.ts: run \`${DOCS_COMMAND}\` and commit the result`,
      )
    })
  }

  it('lists every setting in .env.example once, commented out, and uncommented it loads as the defaults', () => {
    const text = envExample()
    const lines = text.split('\n').filter((l) => /^#[A-Z][A-Z0-9_]*=/.test(l))
    assert.deepEqual(
      lines.map((l) => l.slice(1, l.indexOf('='))),
      Object.keys(SETTINGS),
    )
    assert.ok(!text.split('\n').some((l) => /^[A-Z]/.test(l)), 'no setting is left uncommented')
    const given = parseEnv(
      lines
        .map((l) => l.slice(1))
        .filter((l) => !l.endsWith('='))
        .join('\n'),
    )
    const config = loadConfig(given)
    assert.deepEqual(config, { ...loadConfig({}), simSeed: config.simSeed })
  })

  it('rewrites only between the markers, and leaves a page without them as it is', () => {
    const page = 'intro\n<!-- settings:polymarket start -->\nstale\n<!-- settings:polymarket end -->\noutro\n'
    const { text, groups } = withSettingsTables(page)
    assert.deepEqual(groups, ['polymarket'])
    assert.equal(
      text,
      `intro\n<!-- settings:polymarket start -->\n${settingsTable('polymarket')}\n<!-- settings:polymarket end -->\noutro\n`,
    )
    assert.deepEqual(withSettingsTables('no tables here\n'), { text: 'no tables here\n', groups: [] })
  })

  it('refuses a table whose markers are missing or in two pages', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'settings-docs-'))
    try {
      const block = (g: string) => `<!-- settings:${g} start -->\n<!-- settings:${g} end -->\n`
      writeFileSync(path.join(root, 'README.md'), block('service') + block('kalshi'))
      assert.throws(() => settingsDocs(root), /settings:polymarket start .* found in none/)
      writeFileSync(path.join(root, 'README.md'), block('service') + block('kalshi') + block('polymarket'))
      assert.deepEqual(
        settingsDocs(root).map((d) => d.file),
        ['.env.example', 'README.md'],
      )
      mkdirSync(path.join(root, 'docs'))
      writeFileSync(path.join(root, 'docs', 'operating.md'), block('kalshi'))
      assert.throws(
        () => settingsDocs(root),
        /settings:kalshi start .* found in README\.md, docs\/operating\.md$/,
      )
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
