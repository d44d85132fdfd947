// `contest-signals replay --tape PATH` (decisions §12): runs the engine on a tape into the store of
// DATABASE_URL, with a progress line on a terminal and one summary line at the end. A bad tape, a
// store that already has the series, or a tape that goes bad part-way each end in one line naming
// the cause (and the line of the tape) and a non-zero exit; what was replayed until then stays
// committed, contest by contest, as live. SIGINT or SIGTERM stops it after the engine step running,
// with one line saying where; the same command then goes on from there (replay-standing.ts).
import { constants } from 'node:os'
import path from 'node:path'
import type { Config } from '../config/config.ts'
import { parseInstant } from '../domain/instant.ts'
import { createLogger } from '../main/logger.ts'
import {
  checkReplayable,
  ReplayRefused,
  type ReplaySummary,
  ReplayUsageError,
  runReplay,
} from '../main/replay.ts'
import { storeLocation } from '../main/store-location.ts'
import { systemClock } from '../main/system-clock.ts'
import { createReadingModel, isModelName, MODEL_NAMES } from '../model/models.ts'
import type { Store } from '../ports/store.ts'
import { TapeError } from '../tape/tape-reader.ts'
import { openCommandStore } from './command-store.ts'

export type ReplayArgs = {
  tape: string | undefined
  series: string | undefined
  from: string | undefined
  to: string | undefined
  model: string | undefined
}

const DAY_MS = 86_400_000
const PROGRESS_EVERY_MS = 250

export async function runReplayCommand(config: Config, args: ReplayArgs): Promise<number> {
  const usage = (problem: string): number => {
    process.stderr.write(`contest-signals replay: ${problem} (see contest-signals replay --help)\n`)
    return 2
  }
  if (args.tape === undefined || args.tape === '') return usage('--tape PATH is required')
  const series = args.series === undefined ? undefined : args.series.split(',').filter((s) => s !== '')
  if (series !== undefined && series.length === 0) return usage('--series names no series')
  const from = args.from === undefined ? undefined : parseInstant(args.from)
  const to = args.to === undefined ? undefined : parseInstant(args.to)
  if (from === null)
    return usage(`--from ${JSON.stringify(args.from)} is not an RFC 3339 date-time or a YYYY-MM-DD date`)
  if (to === null)
    return usage(`--to ${JSON.stringify(args.to)} is not an RFC 3339 date-time or a YYYY-MM-DD date`)
  if (from !== undefined && to !== undefined && from >= to) return usage('--from is not before --to')
  if (args.model !== undefined && !isModelName(args.model))
    return usage(`unknown model ${JSON.stringify(args.model)} (known: ${MODEL_NAMES.join(', ')})`)
  // without --model, the model MODEL names (v2 by default), exactly as live
  const modelName = args.model ?? config.model
  const model = createReadingModel(modelName)
  // the command that runs this replay again, and so goes on with it: the same options, the tape's
  // absolute path, and the model named even when MODEL chose it
  const command = [
    'contest-signals replay --tape',
    shellWord(path.resolve(args.tape)),
    ...(args.series === undefined ? [] : ['--series', shellWord(args.series)]),
    ...(args.from === undefined ? [] : ['--from', shellWord(args.from)]),
    ...(args.to === undefined ? [] : ['--to', shellWord(args.to)]),
    '--model',
    shellWord(modelName),
  ].join(' ')

  // the engine's own log goes to stderr, warnings and up unless LOG_LEVEL asks for more detail
  const level = config.logLevel === 'debug' || config.logLevel === 'trace' ? config.logLevel : 'warn'
  const logger = createLogger(config.logLevel === 'silent' ? 'silent' : level, process.stderr)
  const tty = process.stderr.isTTY === true
  let lastDrawn = 0
  const fail = (message: string): number => {
    if (tty) process.stderr.write('\r\x1b[K')
    process.stderr.write(`contest-signals replay: ${message}\n`)
    return 1
  }
  const refused = (err: unknown): number => {
    if (err instanceof TapeError)
      return fail(err.file === null ? `bad tape ${args.tape}: ${err.message}` : `bad tape ${err.message}`)
    if (err instanceof ReplayRefused) return fail(err.message)
    if (err instanceof ReplayUsageError) {
      if (tty) process.stderr.write('\r\x1b[K')
      return usage(err.message)
    }
    throw err
  }
  // a missing or bad tape, a series not on it, a --to not after the start or a period past the
  // tape's end is refused before any store is made for it
  try {
    await checkReplayable(args.tape, series, { from, to })
  } catch (err) {
    return refused(err)
  }
  // a signal stops the replay after the engine step running, so the store says where it stopped; a
  // second one ends the process at once, as the default does
  const stop = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => stop.abort(signal)
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  // a new SQLite file is made only once the replay writes: a run that writes nothing leaves none
  let store: Store | null = null
  const open = async (): Promise<Store> => {
    store = (await openCommandStore(config)).store
    return store
  }
  const location = storeLocation(config.databaseUrl)
  const fresh = location.kind === 'sqlite' && !location.exists && location.path !== ':memory:'
  try {
    const summary = await runReplay({
      tapePath: args.tape,
      ...(series ? { series } : {}),
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
      store: fresh ? open : await open(),
      logger,
      spotMaxAgeMs: config.spotMaxAgeS * 1000,
      model,
      readingMaxLateMs: config.readingMaxLateS * 1000,
      wallClock: systemClock,
      signal: stop.signal,
      command,
      onNotice: (message) => process.stderr.write(`contest-signals replay: ${message}\n`),
      onProgress: tty
        ? (p) => {
            const wall = systemClock.now()
            if (wall - lastDrawn < PROGRESS_EVERY_MS) return
            lastDrawn = wall
            const pct = p.to > p.from ? Math.min(100, (100 * (p.at - p.from)) / (p.to - p.from)) : 100
            process.stderr.write(
              `\r\x1b[Kreplay ${new Date(p.at).toISOString().slice(0, 16)}Z ${pct.toFixed(1)}%: ${p.opened} contests, ${p.signals} signals`,
            )
          }
        : undefined,
    })
    if (tty) process.stderr.write('\r\x1b[K')
    const iso = (ms: number): string => new Date(ms).toISOString()
    if (summary.interrupted) {
      const { reason, lookBack } = summary.interrupted
      const by = typeof reason === 'string' && reason.startsWith('SIG') ? reason : 'a signal'
      const code = 128 + (constants.signals[by as NodeJS.Signals] ?? 0)
      if (lookBack !== null) {
        fail(
          `stopped by ${by} in the look-back before ${iso(lookBack.start)}, where the engine was to start: nothing was written; run it again with: ${command}`,
        )
        return code === 128 ? 1 : code
      }
      process.stdout.write(`${summaryLine(summary)}\n`)
      fail(
        `stopped by ${by} at ${iso(summary.reached)}, the tape instant reached: every engine step up to it is in the store (a contest open then stays live until the replay goes on); on the same DATABASE_URL, go on with: ${command}`,
      )
      return code === 128 ? 1 : code
    }
    process.stdout.write(`${summaryLine(summary)}\n`)
    if (summary.stopped) {
      const { file, line, problem, lookBack } = summary.stopped
      const where = line === null ? '' : ` at line ${line}`
      // a bad line among the records before the start: the replay never reached the start, so
      // "stopped at" it would send the operator looking after --from for a line before it
      const outcome =
        lookBack === null
          ? `stopped at ${iso(summary.reached)}, everything before is in the store; mend the tape and, on the same DATABASE_URL, go on with: ${command}`
          : `in the look-back before the replay's start ${iso(lookBack.start)} (${lookBack.lastGoodAt === null ? 'before any record' : `after the record at ${iso(lookBack.lastGoodAt)}`}): nothing was replayed`
      return fail(`the tape ${file ?? args.tape} is bad${where}: ${problem}; ${outcome}`)
    }
    return 0
  } catch (err) {
    return refused(err)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await (store as Store | null)?.close()
  }
}

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@,+%-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}

/** One line: what the engine did, and how fast. */
export function summaryLine(s: ReplaySummary): string {
  const span = Math.max(0, s.reached - s.from)
  const reasons = Object.entries(s.skipped)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([reason, n]) => `${reason} ${n}`)
  const skipped = reasons.length === 0 ? 'none' : reasons.join(', ')
  const speed = s.wallMs > 0 ? Math.round(span / s.wallMs) : 0
  return (
    `replay ${s.series.join(',')}${s.grain === null ? '' : ` (${s.grain} grain)`}${s.continuedFrom === null ? '' : ` (continued from ${new Date(s.continuedFrom).toISOString()}${s.continuedAfterKill ? ', the last instant the killed run recorded' : ''})`}: ${s.opened} contests opened, ${s.settled} settled (${s.voided} void), ` +
    `${s.signals} signals raised, minutes skipped: ${skipped}; ` +
    `${(span / DAY_MS).toFixed(2)} days of tape in ${(s.wallMs / 1000).toFixed(1)} s (${speed.toLocaleString('en-US')}× real time)`
  )
}
