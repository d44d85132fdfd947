// `contest-signals keys create|list|revoke`: operator key management on the same store as the server.
import type { Config } from '../config/config.ts'
import type { ApiKeyRecord } from '../domain/api-key.ts'
import { issueKey } from '../keys/key-service.ts'
import { openStore } from '../main/open-store.ts'
import { systemClock } from '../main/system-clock.ts'

export async function runKeysCommand(
  config: Config,
  args: string[],
  label: string | undefined,
): Promise<number> {
  const [action, id] = args
  if (action !== 'create' && action !== 'list' && action !== 'revoke') {
    process.stderr.write('contest-signals: usage: keys create --label NAME | keys list | keys revoke ID\n')
    return 2
  }
  if (action === 'create' && (label === undefined || label.trim() === '' || label.length > 200)) {
    process.stderr.write('contest-signals: keys create needs --label NAME (1 to 200 characters)\n')
    return 2
  }
  if (action === 'revoke' && !id) {
    process.stderr.write('contest-signals: keys revoke needs the key ID (see keys list)\n')
    return 2
  }
  const store = await openStore(config)
  try {
    if (action === 'create') {
      const { record, key } = await issueKey(store, label!.trim(), systemClock)
      process.stdout.write(
        `created key ${record.id} (label "${record.label}"); it is shown only now:\n${key}\n`,
      )
      return 0
    }
    if (action === 'list') {
      process.stdout.write(formatKeyTable(await store.listKeys()))
      return 0
    }
    if (await store.revokeKey(id!, systemClock.now())) {
      process.stdout.write(`revoked ${id}\n`)
      return 0
    }
    process.stderr.write(`contest-signals: no active key with id ${id}\n`)
    return 1
  } finally {
    await store.close()
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
