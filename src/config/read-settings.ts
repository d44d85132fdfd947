// Reads every setting of the table from an environment: each variable trimmed, parsed by its row,
// or its default when unset. Every problem is collected rather than thrown, so that one start names
// every mistake at once (decisions §2).
import { isSettingName, SETTINGS, type Setting, type SettingName, type SettingValue } from './settings.ts'

export type Env = Readonly<Record<string, string | undefined>>

export type SettingValues = { readonly [K in SettingName]: SettingValue<K> }

export type ReadSettings = {
  /** a setting that failed holds its default (null without one), so later rules still see a value */
  values: SettingValues
  /** the settings whose value was refused: rules across settings leave them out */
  refused: ReadonlySet<SettingName>
  problems: string[]
}

export function readSettings(env: Env): ReadSettings {
  const problems: string[] = []
  const refused = new Set<SettingName>()
  const values: Record<string, unknown> = {}
  for (const name of Object.keys(SETTINGS)) {
    if (!isSettingName(name)) continue
    const setting: Setting = SETTINGS[name]
    const fallback = setting.default === null ? null : parseDefault(name, setting)
    const raw = env[name]?.trim()
    if (raw === undefined || raw === '') {
      if (raw === '' && setting.emptyMeansUnset !== true) {
        problems.push(`${name} is set but empty: give it a value, or unset it for the default`)
        refused.add(name)
      }
      values[name] = fallback
      continue
    }
    const parsed = setting.parser.parse(raw, name)
    if (parsed.ok) values[name] = parsed.value
    else {
      problems.push(...parsed.problems)
      refused.add(name)
      values[name] = fallback
    }
  }
  return { values: values as SettingValues, refused, problems }
}

function parseDefault(name: string, setting: Setting): unknown {
  const parsed = setting.parser.parse(setting.default ?? '', name)
  // a default the parser refuses is a mistake in the table, not in the environment
  if (!parsed.ok)
    throw new Error(`src/config/settings.ts: the default of ${name} is refused: ${parsed.problems}`)
  return parsed.value
}
