// First start (decisions §2): with no key in the store, create one labelled `bootstrap` and hand it
// over once, with ready-to-paste curl commands, where a person finds it and a log collector does not
// (decisions §7: keys never appear in logs). The key goes into a file only its owner may read (mode
// 0600), whose path is logged; when stderr is a terminal, the same text is also shown there, away
// from the JSON log lines on stdout. It is never shown again: the next start finds a key.
import { closeSync, constants, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { issueKey } from '../keys/key-service.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'

export type BootstrapKeyOutput = {
  /** the file the key is written to (created with mode 0600, replacing any earlier one) */
  file: string
  logger: Pick<Logger, 'info'>
  /** a terminal to show it on as well (stderr when it is a TTY), or null */
  terminal: ((text: string) => void) | null
}

export async function announceBootstrapKey(
  store: Store,
  url: string,
  series: string,
  clock: Clock,
  output: BootstrapKeyOutput,
): Promise<void> {
  if ((await store.listKeys()).length > 0) return
  const { key } = await issueKey(store, 'bootstrap', clock)
  const file = resolve(output.file)
  const text = bannerFor(key, url, series, file)
  writePrivateFile(file, text)
  output.logger.info(
    { file },
    'a first API key (label "bootstrap") was created and written to this file, readable only by this user: copy it, then delete the file',
  )
  output.terminal?.(text)
}

function bannerFor(key: string, url: string, series: string, file: string): string {
  const auth = `-H "Authorization: Bearer ${key}"`
  return [
    '',
    'A first API key was created (label "bootstrap"). It is shown only this once:',
    '',
    `  ${key}`,
    '',
    'Try it:',
    `  curl -s ${auth} "${url}/v1/contests/active?series=${series}"`,
    `  curl -s ${auth} "${url}/v1/contests?series=${series}&limit=5"`,
    `  curl -N ${auth} "${url}/v1/stream/contests?series=${series}"`,
    '',
    `(Also written to ${file}, mode 0600: delete it once the key is safe.)`,
    '',
  ].join('\n')
}

/**
 * Creates the file afresh with mode 0600: an earlier file (or a symlink planted in its place) is
 * removed first, and O_EXCL refuses anything that appears in between.
 */
function writePrivateFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  try {
    unlinkSync(file)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
  try {
    writeSync(fd, `${text}\n`)
  } finally {
    closeSync(fd)
  }
}
