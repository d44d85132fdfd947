// First start (decisions §2): with no key in the store, create one labelled `bootstrap` and hand it
// over once, with ready-to-paste curl commands, where a person finds it and a log collector does not
// (decisions §7: keys never appear in logs). The key goes into a file only its owner may read (mode
// 0600), whose path is logged; when stderr is a terminal, the same text is also shown there, away
// from the JSON log lines on stdout. It is never shown again: the next start finds a key.
//
// The file is written before the key is stored, so a key can never exist that nobody was shown: a
// file that cannot be written stores nothing, and a store that refuses the key takes the file back.
import { closeSync, constants, lstatSync, openSync, unlinkSync, writeSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { newKey } from '../keys/key-service.ts'
import { makeDirectories } from '../platform/make-directories.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'

export type BootstrapKeyOutput = {
  /** the file the key is written to: created with mode 0600, never over an existing one */
  file: string
  logger: Pick<Logger, 'info'>
  /** a terminal to show it on as well (stderr when it is a TTY), or null */
  terminal: ((text: string) => void) | null
}

/** Start-up stops with this one line and exit code (main.ts prints it). */
export class BootstrapKeyError extends Error {
  readonly exitCode: number
  constructor(message: string, exitCode: number) {
    super(message)
    this.name = 'BootstrapKeyError'
    this.exitCode = exitCode
  }
}

const ALREADY_THERE = 'the file already exists and is never replaced; move it away or set another path'

/**
 * Before the start writes anything (the timeline, the backfill): a first start whose key file is
 * already there would otherwise stop only once the api listens, with the store's timeline fixed and
 * no key in it. The O_EXCL write later still guards the moment between.
 */
export async function checkBootstrapKeyFile(store: Store, file: string): Promise<void> {
  if ((await store.listKeys()).length > 0) return
  const path = resolve(file)
  let there = true
  try {
    lstatSync(path)
  } catch {
    there = false
  }
  if (there) throw new BootstrapKeyError(`cannot write BOOTSTRAP_KEY_FILE=${path}: ${ALREADY_THERE}`, 2)
}

export async function announceBootstrapKey(
  store: Store,
  url: string,
  series: string,
  clock: Clock,
  output: BootstrapKeyOutput,
): Promise<void> {
  if ((await store.listKeys()).length > 0) return
  const { record, key } = newKey('bootstrap', clock)
  const file = resolve(output.file)
  const text = bannerFor(key, url, series, file)
  writeNewPrivateFile(file, text)
  try {
    await store.createKey(record)
  } catch (err) {
    removeQuietly(file)
    throw new BootstrapKeyError(
      `the bootstrap key could not be stored (${reasonOf(err)}); its file BOOTSTRAP_KEY_FILE=${file} was removed and no key was kept`,
      1,
    )
  }
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
 * Creates the file with mode 0600 and O_EXCL: an existing file (or a symlink planted in its place) is
 * never replaced — it may be the only copy of an earlier key — and the start stops instead.
 */
function writeNewPrivateFile(file: string, text: string): void {
  const fail = (reason: string, exitCode = 1): never => {
    throw new BootstrapKeyError(`cannot write BOOTSTRAP_KEY_FILE=${file}: ${reason}`, exitCode)
  }
  try {
    makeDirectories(dirname(file), 0o700)
  } catch (err) {
    fail(`its directory cannot be created (${reasonOf(err)})`)
  }
  const fd = openNew(file, fail)
  try {
    writeSync(fd, `${text}\n`)
  } catch (err) {
    closeSync(fd)
    removeQuietly(file)
    fail(reasonOf(err))
  }
  closeSync(fd)
}

function openNew(file: string, fail: (reason: string, exitCode?: number) => never): number {
  try {
    return openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') fail(ALREADY_THERE, 2)
    return fail(reasonOf(err))
  }
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file)
  } catch {
    // already gone, or never made: nothing to take back
  }
}

const reasonOf = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException
  const line = String(e?.message ?? err).split('\n')[0]!
  // Node's file errors begin with their code already; others get it in front
  return e.code && !line.startsWith(e.code) ? `${e.code}: ${line}` : line
}
