// `contest-signals migrate`: apply pending schema migrations and exit.
import type { Config } from '../config/config.ts'
import { openCommandStore } from './command-store.ts'

export async function runMigrate(config: Config): Promise<number> {
  const { store } = await openCommandStore(config)
  try {
    process.stdout.write(`migrations applied; deployment epoch ${await store.epoch()}\n`)
    return 0
  } finally {
    await store.close()
  }
}
