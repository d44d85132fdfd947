#!/usr/bin/env node
// The `contest-signals` command (decisions §2, §8): serve | api | engine | keys create|list|revoke |
// migrate | venue check.
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config/config.ts'
import { createLogger } from '../main/logger.ts'
import { type Role, startService } from '../main/runtime.ts'
import { runKeysCommand } from './keys-command.ts'
import { runMigrate } from './migrate-command.ts'
import { runVenueCheck } from './venue-check-command.ts'

const USAGE = `usage: contest-signals <command>

commands:
  serve                      api + engine in one process (the embedded default)
  api                        api role only
  engine                     engine role only
  keys create --label NAME   create an API key; the key is printed alone on the last line
  keys list                  list keys (id, label, key prefix, created, last used, revoked)
  keys revoke ID             revoke a key
  migrate                    apply schema migrations and exit
  venue check                what the engine would follow now: markets, asks, spot per source

Settings come from environment variables (PORT, HOST, DATABASE_URL, ...): see the README.`

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { label: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  })
  const [command, ...rest] = positionals
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return command === undefined && !values.help ? 2 : 0
  }

  const config = loadConfig(process.env)
  switch (command) {
    case 'serve':
    case 'api':
    case 'engine':
      return serve(command, config)
    case 'keys':
      return runKeysCommand(config, rest, values.label)
    case 'migrate':
      return runMigrate(config)
    case 'venue':
      if (rest[0] !== 'check' || rest.length !== 1) {
        process.stderr.write('contest-signals: usage: venue check\n')
        return 2
      }
      return runVenueCheck(config)
    default:
      process.stderr.write(`contest-signals: unknown command "${command}"\n${USAGE}\n`)
      return 2
  }
}

async function serve(role: Role, config: ReturnType<typeof loadConfig>): Promise<number> {
  const logger = createLogger(config.logLevel)
  // Installed before start-up so a signal that arrives while starting still ends in a clean stop.
  const stopRequested = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down')
      resolve()
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  })
  const service = await startService(role, config, logger)
  // Stop accepting, end streams, stop the engine, close the store, exit 0.
  await stopRequested
  await service.close()
  logger.info('stopped')
  return 0
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    // One clear line and a non-zero exit: a bad setting names the variable and what is wrong.
    if (err instanceof ConfigError) {
      process.stderr.write(`contest-signals: invalid configuration: ${err.problems.join('; ')}\n`)
    } else if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`contest-signals: ${err.message}\n`)
    } else {
      const message = err instanceof Error ? err.message : String(err)
      process.stderr.write(`contest-signals: ${message.split('\n')[0]}\n`)
    }
    process.exitCode = 1
  },
)
