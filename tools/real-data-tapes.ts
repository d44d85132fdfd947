// `node tools/real-data-tapes.ts [--data DIR] --out DIR`: minute-grained Kalshi KXBTC15M tapes, one
// file per UTC day (decisions §12, §15), built at run time from the recorded research files in DIR
// (default ../shared/real-data; layout and caveats in its README). Those files have no licence: the
// tapes are written outside the repository and nothing of them is ever committed.
import { mkdir, readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { MINUTE_GRAIN, type TapeHeader } from '../src/tape/tape-format.ts'
import { createTapeWriter } from '../src/tape/tape-writer.ts'
import {
  candleBooks,
  coinbaseCloses,
  HistoryInputError,
  type MinuteHistory,
  minuteHistory,
  SERIES,
  SPOT_SOURCE,
  settledContests,
} from './real-data/kalshi-minute-history.ts'
import { parseToolArgs } from './tool-args.ts'

export const DEFAULT_REAL_DATA = path.join(import.meta.dirname, '..', '..', 'shared', 'real-data')
const DAY_MS = 86_400_000

/** The files of one kind in a folder of DIR, by name prefix and ending, in name order. */
export async function filesOf(
  dir: string,
  folder: string,
  prefix: string,
  suffix = '.csv',
): Promise<string[]> {
  const where = path.join(dir, folder)
  const names = await readdir(where).catch(() => null)
  if (names === null) throw new HistoryInputError(where, 0, 'no such folder')
  const found = names.filter((n) => n.startsWith(prefix) && n.endsWith(suffix)).sort()
  if (found.length === 0) throw new HistoryInputError(where, 0, `no ${prefix}*${suffix} file`)
  return found.map((n) => path.join(where, n))
}

/** Every file's rows as `parse` reads them, in order; a `.gz` file is read through gunzip. */
export async function readAll<T>(files: string[], parse: (file: string, text: string) => T[]): Promise<T[]> {
  const out: T[] = []
  for (const file of files) {
    const bytes = await readFile(file)
    out.push(
      ...parse(path.basename(file), (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')),
    )
  }
  return out
}

export type BuiltTapes = Omit<MinuteHistory, 'records'> & { files: string[] }

/** Reads DIR's Kalshi settlements and quote candles and its Coinbase closes; writes the day tapes into `outDir`. */
export async function buildRealDataTapes(dataDir: string, outDir: string): Promise<BuiltTapes> {
  const settled = await readAll(
    await filesOf(dataDir, 'kalshi', 'kalshi_kxbtc15m_settlements_'),
    settledContests,
  )
  const books = await readAll(await filesOf(dataDir, 'kalshi', 'kalshi_kxbtc15m_1m_quotes_'), candleBooks)
  const closes = await readAll(await filesOf(dataDir, 'spot', 'coinbase_btcusd_1m_close_'), coinbaseCloses)
  const { records, ...history } = minuteHistory(settled, books, closes)
  await mkdir(outDir, { recursive: true })
  const files: string[] = []
  let i = 0
  while (i < records.length) {
    const day = Math.floor((records[i]?.t as number) / DAY_MS) * DAY_MS
    const first = files.length === 0
    const file = path.join(outDir, `tape-${new Date(day).toISOString().slice(0, 10)}.ndjson.gz`)
    const header: TapeHeader = {
      tape: 1,
      venue: 'kalshi',
      series: [SERIES],
      sources: [SPOT_SOURCE],
      // the engine starts at the first quoted contest; what comes before it only builds its state
      from: new Date(first ? history.startsAt : day).toISOString(),
      to: new Date(Math.min(day + DAY_MS, history.endsAt)).toISOString(),
      // the folder's own name, not this machine's path: the origin lands in a parameter file's provenance
      origin: `built by tools/real-data-tapes.ts from ${path.basename(path.resolve(dataDir))}/: Kalshi settlements and 1-minute quote candles, Coinbase 1-minute closes`,
      grain: MINUTE_GRAIN,
    }
    const writer = await createTapeWriter(file, { header })
    for (; i < records.length && (records[i]?.t as number) < day + DAY_MS; i++)
      writer.write(records[i] as never)
    await writer.close()
    files.push(file)
  }
  return { ...history, files }
}

export function builtLine(b: BuiltTapes): string {
  const unsettled =
    b.unsettledQuoted.length === 0
      ? ''
      : `, ${b.unsettledQuoted.length} quoted contests without a settlement left out`
  return (
    `real-data tapes: ${b.contests} contests from ${new Date(b.startsAt).toISOString()} (${b.warmUpContests} earlier ones as warm-up), ` +
    `${b.books} quote candles, ${b.closes} ${SPOT_SOURCE} closes${unsettled}; ${b.files.length} day files`
  )
}

if (import.meta.main) {
  const { values } = parseToolArgs(
    'real-data-tapes',
    'builds minute-grained day tapes from ../shared/real-data (never committed)',
    {
      options: { data: { type: 'string', default: DEFAULT_REAL_DATA }, out: { type: 'string' } },
    },
  )
  if (!values.out) {
    process.stderr.write('real-data-tapes: --out DIR is required (where the day tapes are written)\n')
    process.exit(2)
  }
  try {
    process.stdout.write(`${builtLine(await buildRealDataTapes(values.data, values.out))}\n`)
  } catch (err) {
    if (!(err instanceof HistoryInputError || (err as NodeJS.ErrnoException).code)) throw err
    process.stderr.write(`real-data-tapes: ${(err as Error).message}\n`)
    process.exit(1)
  }
}
