// The settings table as documentation: a Markdown table per group, written between its markers in the
// README (or whichever docs page holds them), and .env.example. Pure text in, text out: the files are
// read and written by tools/settings-docs.ts (`npm run settings:docs`), and settings-docs.test.ts
// fails when what is committed differs from what the table gives.
import { SETTING_GROUPS, type Setting, type SettingGroupName } from './settings.ts'

export const DOCS_COMMAND = 'npm run settings:docs'

const groups = (): [SettingGroupName, Record<string, Setting>][] =>
  Object.entries(SETTING_GROUPS).map(([name, g]) => [name as SettingGroupName, g.settings])

const markers = (group: string) => ({
  start: `<!-- settings:${group} start -->`,
  end: `<!-- settings:${group} end -->`,
})

const shownDefault = (s: Setting): string => s.shownDefault ?? `\`${s.default}\``

/** One group's Markdown table, one row per setting in the table's order. */
export function settingsTable(group: SettingGroupName): string {
  const cell = (s: string) => s.replaceAll('|', '\\|')
  const rows = Object.entries(SETTING_GROUPS[group].settings as Record<string, Setting>).map(
    ([name, s]) => `| \`${name}\` | ${cell(shownDefault(s))} | ${cell(s.parser.accepts)} | ${cell(s.doc)} |`,
  )
  return ['| variable | default | accepts | meaning |', '|---|---|---|---|', ...rows].join('\n')
}

/**
 * `markdown` with each group's table written between that group's markers, and the groups whose
 * markers it holds. Text outside the markers is kept as it is.
 */
export function withSettingsTables(markdown: string): { text: string; groups: SettingGroupName[] } {
  let text = markdown
  const found: SettingGroupName[] = []
  for (const [group] of groups()) {
    const { start, end } = markers(group)
    const from = text.indexOf(start)
    if (from === -1) continue
    const to = text.indexOf(end, from)
    if (to === -1) throw new Error(`${start} has no ${end} after it`)
    if (text.indexOf(start, to) !== -1) throw new Error(`${start} appears twice`)
    text = `${text.slice(0, from + start.length)}\n${settingsTable(group)}\n${text.slice(to)}`
    found.push(group)
  }
  return { text, groups: found }
}

/** Markdown as a comment line shows it: links as their text (and a file's path), no code marks. */
function plain(markdown: string): string {
  return markdown
    .replace(/\[([^\]]+)\]\(([^)]+)\)/g, (_, label: string, target: string) => {
      const text = label.replaceAll('`', '')
      return target.startsWith('#') || target === text ? text : `${text} (${target})`
    })
    .replaceAll('`', '')
}

/** `text` as `# ` comment lines of at most `width` characters, broken between words. */
function comment(text: string, width = 100): string[] {
  const lines: string[] = []
  let line = '#'
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > width && line !== '#') {
      lines.push(line)
      line = '#'
    }
    line += ` ${word}`
  }
  return [...lines, line]
}

const ENV_HEADER = `contest-signals: every setting, commented out at its default. Copy this file to .env, uncomment
what you change, and hand it to the program as its environment: \`npx node --env-file=.env
src/cli/main.ts serve\`, docker compose's env_file, or systemd's EnvironmentFile. A bad value stops the
program at start with one line naming it; an empty value is refused unless the default is unset.
Written from src/config/settings.ts by \`${DOCS_COMMAND}\`: change the table, not this file.`

/** .env.example: every setting commented out with its default, its doc and what it accepts, by group. */
export function envExample(): string {
  const out = ENV_HEADER.split('\n').map((l) => `# ${l}`)
  for (const [group, settings] of groups()) {
    out.push('', `# ── ${SETTING_GROUPS[group].title} ──`)
    for (const [name, s] of Object.entries(settings)) {
      const accepts = `accepts: ${plain(s.parser.accepts)}`
      const note = s.shownDefault === undefined ? accepts : `${accepts}; default: ${plain(s.shownDefault)}`
      out.push('', ...comment(plain(s.doc)), ...comment(note), `#${name}=${s.default ?? ''}`)
    }
  }
  return `${out.join('\n')}\n`
}
