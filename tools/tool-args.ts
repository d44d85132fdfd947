// A quant tool's options (`npm run fit:model -- …`, `model:card`, …): `--help` lists them with their
// defaults, and an unknown option or a missing value is one line naming the tool and exit 2 — a
// mistyped flag on a run that takes an hour should say so at once, not print a stack trace.
import { type ParseArgsConfig, parseArgs } from 'node:util'

/** `name`'s options parsed from `config.args` (default: the process's own arguments). */
export function parseToolArgs<const T extends ParseArgsConfig>(
  name: string,
  about: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  const args = config.args ?? process.argv.slice(2)
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${toolHelp(name, about, config)}\n`)
    process.exit(0)
  }
  try {
    return parseArgs(config)
  } catch (err) {
    if (!String((err as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')) throw err
    process.stderr.write(`${name}: ${(err as Error).message} (--help lists the options)\n`)
    process.exit(2)
  }
}

/** The tool's one-line purpose, then each option with its default. */
export function toolHelp(name: string, about: string, config: ParseArgsConfig): string {
  const lines = Object.entries(config.options ?? {}).map(([flag, opt]) => {
    const value = opt.type === 'string' ? ' <value>' : ''
    const dflt = opt.default === undefined ? '' : ` (default: ${JSON.stringify(opt.default)})`
    return `  --${flag}${value}${dflt}`
  })
  return [`${name}: ${about}`, '', 'options:', ...lines, '  --help, -h'].join('\n')
}
