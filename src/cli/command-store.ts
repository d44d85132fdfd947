// The store a short command works on, announced on stderr (stdout stays the command's own output):
// the absolute path of a SQLite file, or the PostgreSQL URL without its password, and whether an
// empty store was just created there.
import type { Config } from '../config/config.ts'
import { type OpenedStore, type OpenStoreOptions, openStoreAt } from '../main/open-store.ts'
import { describeStore } from '../main/store-location.ts'

export async function openCommandStore(
  config: Pick<Config, 'databaseUrl'>,
  opts: OpenStoreOptions = {},
): Promise<OpenedStore> {
  const opened = await openStoreAt(config, opts)
  process.stderr.write(`contest-signals: ${describeStore(opened.location)}\n`)
  return opened
}
