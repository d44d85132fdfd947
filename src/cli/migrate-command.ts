// `contest-signals migrate`: apply pending schema migrations and exit.
import type { Config } from '../config/config.ts'
import { openStore } from '../main/open-store.ts'

export async function runMigrate(config: Config): Promise<number> {
  const store = await openStore(config)
  try {
    process.stdout.write(`migrations applied; deployment epoch ${await store.epoch()}\n`)
    return 0
  } finally {
    await store.close()
  }
}
