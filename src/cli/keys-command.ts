// `contest-signals keys create|list|revoke`: operator key management on the same store as the server.
import { type Config, usesSimulator } from '../config/config.ts'
import { type ApiKeyRecord, containsKey, KEY_SHOWN_CHARS, maskKeys } from '../domain/api-key.ts'
import { issueKey } from '../keys/key-service.ts'
import { StoreMissingError } from '../main/open-store.ts'
import { storedServiceClock } from '../main/service-clock.ts'
import { systemClock } from '../main/system-clock.ts'
import type { Clock } from '../ports/clock.ts'
import { openCommandStore } from './command-store.ts'
import { stdoutIsDiscarded, writeStdout } from './stdout.ts'

export type KeysOptions = { label: string | undefined; json: boolean }

export async function runKeysCommand(config: Config, args: string[], opts: KeysOptions): Promise<number> {
  const { label } = opts
  const [action, id] = args
  if (action !== 'create' && action !== 'list' && action !== 'revoke') {
    process.stderr.write(
      'contest-signals: usage: keys create --label NAME | keys list [--json] | keys revoke ID (see keys --help)\n',
    )
    return 2
  }
  if (opts.json && action !== 'list') {
    process.stderr.write('contest-signals: --json goes with keys list\n')
    return 2
  }
  if (action === 'create' && !isLabel(label)) {
    process.stderr.write(
      'contest-signals: keys create needs --label NAME (1 to 200 characters, no control characters)\n',
    )
    return 2
  }
  if (action === 'revoke' && !id) {
    process.stderr.write('contest-signals: keys revoke needs the key ID (see keys list)\n')
    return 2
  }
  // A key pasted where its id belongs: said without repeating the secret (decisions §7: keys never
  // appear in error messages), with the prefix `keys list` shows so its row can be found.
  if (action === 'revoke' && containsKey(id!)) {
    process.stderr.write(
      `contest-signals: keys revoke takes the key's ID (key_…), not the key itself; keys list shows it on the row whose PREFIX is ${id!.slice(0, KEY_SHOWN_CHARS)}…\n`,
    )
    return 2
  }
  // one key per revoke, none for the others: a stray word is a mistake to say, not to ignore
  const extra = args[action === 'revoke' ? 2 : 1]
  if (extra !== undefined) {
    process.stderr.write(
      `contest-signals: keys ${action}: unexpected argument "${maskKeys(extra)}" (see keys --help)\n`,
    )
    return 2
  }
  if (label !== undefined && action !== 'create') {
    process.stderr.write('contest-signals: --label goes with keys create\n')
    return 2
  }
  if (action === 'create' && stdoutIsDiscarded()) {
    process.stderr.write(
      'contest-signals: keys create prints the new key once, on stdout, which goes to /dev/null (or was closed): no key was created\n',
    )
    return 2
  }
  // listing only reads: it never creates a store where there was none (decisions §9), and a fresh
  // deployment's answer is that it has no keys yet (decisions §2: every command works on a fresh store)
  let opened: Awaited<ReturnType<typeof openCommandStore>>
  try {
    opened = await openCommandStore(config, { mustExist: action === 'list' })
  } catch (err) {
    if (!(err instanceof StoreMissingError)) throw err
    process.stdout.write(opts.json ? '[]\n' : formatKeyTable([]))
    process.stderr.write(`contest-signals: no store at ${err.where} yet, so no keys; none was created\n`)
    return 0
  }
  const { store } = opened
  try {
    // Created, last used and revoked all on one clock: the deployment's, as the api records last use.
    const clock: Clock = usesSimulator(config) ? await storedServiceClock(store, systemClock) : systemClock
    if (action === 'create') {
      const { record, key } = await issueKey(store, label!.trim(), clock)
      try {
        await writeStdout(
          `created key ${record.id} (label "${record.label}"); it is shown only now:\n${key}\n`,
        )
      } catch (err) {
        // A key no one saw is a key no one can use or knows to revoke: it goes at once.
        await store.revokeKey(record.id, clock.now())
        process.stderr.write(
          `contest-signals: keys create could not print the new key (${(err as NodeJS.ErrnoException).code ?? String(err)}); key ${record.id} was revoked\n`,
        )
        return 1
      }
      return 0
    }
    if (action === 'list') {
      const keys = await store.listKeys()
      process.stdout.write(
        opts.json ? `${JSON.stringify(keys.map(toKeyJson), null, 2)}\n` : formatKeyTable(keys),
      )
      if (!opts.json && clock !== systemClock)
        process.stderr.write(
          "contest-signals: times are UTC on the deployment's virtual clock (the simulator runs faster than the wall clock)\n",
        )
      return 0
    }
    if (await store.revokeKey(id!, clock.now())) {
      process.stdout.write(`revoked ${id}\n`)
      return 0
    }
    process.stderr.write(`contest-signals: no active key with id ${id}\n`)
    return 1
  } finally {
    await store.close()
  }
}

/**
 * A label `keys list` can print on one row: 1 to 200 characters, not all blank, and no control
 * characters (a newline or an escape sequence would break or repaint the operator's table).
 */
function isLabel(label: string | undefined): label is string {
  return label !== undefined && label.trim() !== '' && label.length <= 200 && !/\p{Cc}/u.test(label)
}

/** One key as `keys list --json` prints it: snake_case like the API, times RFC 3339 or null. */
export type KeyJson = {
  id: string
  label: string
  prefix: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
}

export function toKeyJson(k: ApiKeyRecord): KeyJson {
  const when = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
  return {
    id: k.id,
    label: k.label,
    prefix: k.prefix,
    created_at: new Date(k.createdAt).toISOString(),
    last_used_at: when(k.lastUsedAt),
    revoked_at: when(k.revokedAt),
  }
}

export function formatKeyTable(keys: readonly ApiKeyRecord[]): string {
  const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString())
  const rows = [
    ['ID', 'LABEL', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED'],
    ...keys.map((k) => [
      k.id,
      k.label,
      `${k.prefix}…`,
      when(k.createdAt),
      when(k.lastUsedAt),
      when(k.revokedAt),
    ]),
  ]
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return `${rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`
}
