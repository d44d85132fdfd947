// `npm run settings:docs`: writes the settings tables between their markers in README.md (or the
// docs/ page that holds them) and .env.example, from the one table, src/config/settings.ts.
// test/settings-docs.test.ts fails when the committed files differ from what this writes.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { SETTING_GROUPS, type SettingGroupName } from '../src/config/settings.ts'
import { envExample, withSettingsTables } from '../src/config/settings-docs.ts'

export const ROOT = path.join(import.meta.dirname, '..')

export type DocFile = { file: string; current: string | null; expected: string }

/** The pages that may hold settings markers: the README, then docs/ (wherever the tables are moved). */
function markdownPages(root: string): string[] {
  const docs = path.join(root, 'docs')
  const pages = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => path.join('docs', f))
    : []
  return ['README.md', ...pages]
}

/**
 * Every file the table writes, as it is and as it should be. Throws when a group's markers are in
 * no page, or in two: each table has one home.
 */
export function settingsDocs(root = ROOT): DocFile[] {
  const read = (file: string) =>
    existsSync(path.join(root, file)) ? readFileSync(path.join(root, file), 'utf8') : null
  const files: DocFile[] = [{ file: '.env.example', current: read('.env.example'), expected: envExample() }]
  const homes = new Map<SettingGroupName, string[]>()
  for (const file of markdownPages(root)) {
    const current = read(file)
    if (current === null) continue
    const { text, groups } = withSettingsTables(current)
    for (const g of groups) homes.set(g, [...(homes.get(g) ?? []), file])
    if (groups.length > 0) files.push({ file, current, expected: text })
  }
  for (const group of Object.keys(SETTING_GROUPS) as SettingGroupName[]) {
    const where = homes.get(group) ?? []
    if (where.length !== 1)
      throw new Error(
        `<!-- settings:${group} start --> … <!-- settings:${group} end --> must be in exactly one of README.md and docs/*.md; found in ${where.length === 0 ? 'none' : where.join(', ')}`,
      )
  }
  return files
}

if (import.meta.main) {
  for (const { file, current, expected } of settingsDocs()) {
    if (current === expected) continue
    writeFileSync(path.join(ROOT, file), expected)
    process.stdout.write(`wrote ${file}\n`)
  }
}
