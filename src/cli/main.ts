#!/usr/bin/env node
// The `contest-signals` command (decisions §2, §8): serve | api | engine | keys create|list|revoke |
// migrate | backtest | evaluate | backup | venue check | replay | sim tape | history import, each with
// its own --help, and --version.
// First, before any other module runs (the file says why).
import '../main/no-pretenuring.ts'
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { ConfigError, loadConfig, simulatorServeProblems } from '../config/config.ts'
import { maskKeys } from '../domain/api-key.ts'
import type { Role } from '../main/runtime.ts'
import { VERSION } from '../main/version.ts'
import { COMMAND_HELP, USAGE } from './help.ts'
import { exitCodeAfterOutput, guardStdout } from './stdout.ts'

// Each command's own modules are imported when it runs, not here: loading all of them (the HTTP
// stack, the stores, the model, the venues: about a thousand modules) cost a second of CPU before
// --version, --help or a usage error could answer, and `keys` or `migrate` need a fraction of it.

type Options = NonNullable<ParseArgsConfig['options']>

/** Each command's own options; --help is everyone's. */
const COMMAND_OPTIONS: Readonly<Record<string, Options>> = {
  serve: {},
  api: {},
  engine: {},
  keys: { label: { type: 'string' }, json: { type: 'boolean' } },
  migrate: {},
  backtest: {
    series: { type: 'string' },
    since: { type: 'string' },
    before: { type: 'string' },
    'min-confidence': { type: 'string' },
    'min-edge': { type: 'string' },
    side: { type: 'string' },
    json: { type: 'boolean' },
    grid: { type: 'boolean' },
  },
  evaluate: {
    series: { type: 'string' },
    since: { type: 'string' },
    before: { type: 'string' },
    json: { type: 'boolean' },
    'sim-seed': { type: 'string' },
    'train-until': { type: 'string' },
    against: { type: 'string' },
  },
  backup: {},
  venue: {},
  replay: {
    tape: { type: 'string' },
    series: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    model: { type: 'string' },
  },
  sim: {
    venue: { type: 'string' },
    days: { type: 'string' },
    seed: { type: 'string' },
    from: { type: 'string' },
    out: { type: 'string' },
  },
  history: {
    venue: { type: 'string' },
    series: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    sources: { type: 'string' },
    out: { type: 'string' },
  },
}

/**
 * `--min-edge -5` as `--min-edge=-5`: a value option followed by a negative number takes it as its
 * value (node's parseArgs would read the number as an option and refuse the pair as ambiguous).
 */
function withNegativeValues(args: readonly string[], options: Options): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const next = args[i + 1]
    const name = arg.startsWith('--') ? arg.slice(2) : null
    if (name !== null && options[name]?.type === 'string' && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${arg}=${next}`)
      i++
    } else out.push(arg)
  }
  return out
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(`contest-signals ${VERSION}\n`)
    return 0
  }
  if (first === undefined) {
    process.stderr.write(`${USAGE}\n`)
    return 2
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = rest[0]
    if (topic !== undefined && !COMMAND_HELP[topic]) {
      process.stderr.write(`contest-signals: no help on "${maskKeys(topic)}": not a command\n${USAGE}\n`)
      return 2
    }
    process.stdout.write(`${(topic && COMMAND_HELP[topic]) || USAGE}\n`)
    return 0
  }
  const options = COMMAND_OPTIONS[first]
  if (options === undefined) {
    process.stderr.write(`contest-signals: unknown command "${maskKeys(first)}"\n${USAGE}\n`)
    return 2
  }
  const {
    positionals,
    values: parsed,
    tokens,
  } = parseArgs({
    args: withNegativeValues(rest, options),
    allowPositionals: true,
    strict: true,
    tokens: true,
    options: { ...options, help: { type: 'boolean', short: 'h' } },
  })
  // an option given twice is a mistake to say, as the API refuses a repeated parameter (decisions §4)
  const seen = new Set<string>()
  for (const token of tokens)
    if (token.kind === 'option') {
      if (seen.has(token.name)) return usageError(first, `--${token.name} is given more than once`)
      seen.add(token.name)
    }
  const values = parsed as Readonly<Record<string, string | boolean | undefined>>
  // --help needs no configuration: it works whatever the environment holds.
  if (values.help) {
    process.stdout.write(`${COMMAND_HELP[first]}\n`)
    return 0
  }

  const config = loadConfig(process.env)
  const str = (name: string) => values[name] as string | undefined
  switch (first) {
    case 'serve':
    case 'api':
    case 'engine':
      if (positionals.length > 0) return usageError(first, `unexpected argument "${positionals[0]}"`)
      return serve(first, config)
    case 'keys':
      return (await import('./keys-command.ts')).runKeysCommand(config, positionals, {
        label: str('label'),
        json: values.json === true,
      })
    case 'migrate':
      if (positionals.length > 0) return usageError(first, `unexpected argument "${positionals[0]}"`)
      return (await import('./migrate-command.ts')).runMigrate(config)
    case 'backtest':
      if (positionals.length > 0) return usageError(first, `unexpected argument "${positionals[0]}"`)
      return (await import('./backtest-command.ts')).runBacktestCommand(config, {
        series: str('series'),
        since: str('since'),
        before: str('before'),
        minConfidence: str('min-confidence'),
        minEdge: str('min-edge'),
        side: str('side'),
        json: values.json === true,
        grid: values.grid === true,
      })
    case 'replay':
      if (positionals.length > 0) return usageError(first, `unexpected argument "${positionals[0]}"`)
      return (await import('./replay-command.ts')).runReplayCommand(config, {
        tape: str('tape'),
        series: str('series'),
        from: str('from'),
        to: str('to'),
        model: str('model'),
      })
    case 'sim':
      if (positionals[0] !== 'tape' || positionals.length !== 1)
        return usageError(
          first,
          'usage: sim tape [--venue kalshi|polymarket] --days N [--seed S] [--from T] --out PATH',
        )
      return (await import('./sim-tape-command.ts')).runSimTapeCommand(config, {
        venue: str('venue'),
        days: str('days'),
        seed: str('seed'),
        from: str('from'),
        out: str('out'),
      })
    case 'history':
      if (positionals[0] !== 'import' || positionals.length !== 1)
        return usageError(
          first,
          'usage: history import --venue kalshi|polymarket [--series S] --since T --until T --out DIR',
        )
      return (await import('./history-import-command.ts')).runHistoryImport(
        config,
        {
          venue: str('venue'),
          series: str('series'),
          since: str('since'),
          until: str('until'),
          out: str('out'),
          sources: str('sources'),
        },
        { stdout: process.stdout, stderr: process.stderr, now: () => Date.now() },
      )
    case 'evaluate': {
      if (positionals.length > 0) return usageError(first, `unexpected argument "${positionals[0]}"`)
      const { runEvaluateCommand, sandboxOracle } = await import('./evaluate-command.ts')
      return runEvaluateCommand(
        config,
        {
          series: str('series'),
          since: str('since'),
          before: str('before'),
          json: values.json === true,
          simSeed: str('sim-seed'),
          trainUntil: str('train-until'),
          against: str('against'),
        },
        sandboxOracle,
      )
    }
    case 'backup':
      if (positionals.length !== 1) return usageError(first, 'needs exactly one PATH')
      return (await import('./backup-command.ts')).runBackupCommand(config, positionals[0]!)
    default:
      if (positionals[0] !== 'check' || positionals.length !== 1)
        return usageError(first, 'usage: venue check')
      return (await import('./venue-check-command.ts')).runVenueCheck(config)
  }
}

function usageError(command: string, problem: string): number {
  // An argument may be a key pasted in the wrong place: never repeated (decisions §7).
  process.stderr.write(
    `contest-signals ${command}: ${maskKeys(problem)} (see contest-signals ${command} --help)\n`,
  )
  return 2
}

async function serve(role: Role, config: ReturnType<typeof loadConfig>): Promise<number> {
  const [{ createLogger }, { startService }] = await Promise.all([
    import('../main/logger.ts'),
    import('../main/runtime.ts'),
  ])
  const logger = createLogger(config.logLevel)
  // Installed before start-up so a signal that arrives while starting still ends in a clean stop,
  // and cuts a first start's backfill short (the next start goes on with it).
  const stopping = new AbortController()
  const stopRequested = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down')
      stopping.abort(signal)
      resolve()
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  })
  // the roles that run the engine, and with it the simulator
  const simulatorProblems = role === 'api' ? [] : simulatorServeProblems(config)
  if (simulatorProblems.length > 0) throw new ConfigError(simulatorProblems)
  const service = await startService(role, config, logger, undefined, stopping.signal)
  // Stop accepting, end streams, stop the engine, close the store, exit 0.
  await stopRequested
  await service.close()
  logger.info('stopped')
  return 0
}

guardStdout()
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = exitCodeAfterOutput(code)
  },
  (err: unknown) => {
    // One clear line and a non-zero exit: a bad setting names the variable and what is wrong.
    if (err instanceof ConfigError) {
      process.stderr.write(`contest-signals: invalid configuration: ${err.problems.join('; ')}\n`)
    } else if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      // as every other usage error: the command, the fault (Node's hint about `--` left out), its help
      const command = process.argv.slice(2).find((a) => !a.startsWith('-'))
      const fault = maskKeys(err.message.replace(/\. To specify a positional argument.*$/s, ''))
      process.stderr.write(
        command === undefined
          ? `contest-signals: ${fault} (see contest-signals --help)\n`
          : `contest-signals ${command}: ${fault} (see contest-signals ${command} --help)\n`,
      )
      process.exitCode = 2
      return
    } else {
      const message = err instanceof Error ? err.message : String(err)
      process.stderr.write(`contest-signals: ${message.split('\n')[0]}\n`)
      // a start-up failure that states its own code (an existing bootstrap key file: 2)
      const code = (err as { exitCode?: unknown }).exitCode
      if (typeof code === 'number') {
        process.exitCode = code
        return
      }
    }
    process.exitCode = 1
  },
)
