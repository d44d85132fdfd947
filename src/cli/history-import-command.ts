// `contest-signals history import` (decisions §15): writes one tape per UTC day from a venue's public
// history and the exchanges' minute candles — the venue's records (kalshi-history.ts,
// polymarket-history.ts), each source's minute closes as spot records, and at the head of each day
// the closes the model's first readings look back at (a `closes` record, so every day file replays on
// its own). A day already written is skipped without a request; a day is written only once whole,
// and not while a window in it is unresolved (it would never be fetched again).
// A progress bar on a terminal, one summary line, and one line naming the endpoint when a venue
// answers with something unusable (non-zero exit, no half-written day).
import { mkdir } from 'node:fs/promises'
import type { Config } from '../config/config.ts'
import { SPOT_SOURCES, type SpotSourceName } from '../config/settings.ts'
import { parseInstant } from '../domain/instant.ts'
import { type RealVenueName, venueOfSeries } from '../domain/venues.ts'
import { writeDayFile, writtenDayHeader } from '../history/day-files.ts'
import { createHistoryHost, HistoryError, type HttpCounts } from '../history/history-http.ts'
import { emptyTotals, type ImportTotals, progressBar, summaryLine } from '../history/import-report.ts'
import { createSpotHistory, SPOT_REQUESTS_PER_SEC, type SpotHistory } from '../history/spot-history.ts'
import { DAY_MS, MINUTE_MS, type VenueHistory } from '../history/venue-history.ts'
import { createLogger } from '../main/logger.ts'
import { spotKeepMinutes } from '../main/spot-history.ts'
import { systemClock } from '../main/system-clock.ts'
import { REAL_VENUE_NAMES, VENUE_KINDS, venueKind } from '../main/venue-kinds.ts'
import { createReadingModel, MODEL_NAMES } from '../model/models.ts'
import { minuteCloseRecord } from '../tape/minute-grain.ts'
import { MINUTE_GRAIN, type TapeHeader, type TapeRecord } from '../tape/tape-format.ts'
import { dayFileName } from '../tape/tape-recorder.ts'

export type HistoryImportArgs = {
  venue: string | undefined
  series: string | undefined
  since: string | undefined
  until: string | undefined
  out: string | undefined
  sources: string | undefined
}

export type HistoryImportIo = {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
  now: () => number
}

const DEFAULT_SOURCES = 'coinbase,bitstamp'
/** How long after its end a day's last contests have surely settled (Kalshi: seconds; SETTLE_LOOKBACK_MS). */
export const DAY_SETTLED_AFTER_MS = 3_600_000
const PROGRESS_EVERY_MS = 500

type Plan = {
  venue: RealVenueName
  series: string
  sources: SpotSourceName[]
  days: number[]
  out: string
}

/** The plan the options name, or what is wrong with them (one line). */
export function planImport(args: HistoryImportArgs, now: number): Plan | string {
  const venue = venueKind(args.venue ?? '')
  if (!venue) return `--venue must be ${REAL_VENUE_NAMES.join(' or ')}`
  const series = args.series ?? venue.defaultSeries
  if (series === '' || /[\s,]/.test(series)) return '--series must name one series'
  // the series' prefix names its venue (SERIES, decisions §14): another venue's series would be asked of the wrong API
  const owner = venueOfSeries(series)
  if (owner === null)
    return `--series ${series} belongs to no known venue (KX… is Kalshi, btc-updown-… Polymarket)`
  if (owner !== venue.name) return `--series ${series} is a ${owner} series, not a ${venue.name} one`
  if (args.out === undefined || args.out === '') return '--out DIR is required'
  const sources = (args.sources ?? DEFAULT_SOURCES).split(',').filter((s) => s !== '')
  const unknown = sources.find((s) => !(SPOT_SOURCES as readonly string[]).includes(s))
  if (unknown !== undefined) return `unknown spot source "${unknown}" (known: ${SPOT_SOURCES.join(', ')})`
  if (sources.length === 0) return '--sources names no source'
  if (args.since === undefined || args.until === undefined) return '--since T and --until T are required'
  const since = parseInstant(args.since)
  const until = parseInstant(args.until)
  if (since === null)
    return `--since ${JSON.stringify(args.since)} is not an RFC 3339 date-time or a YYYY-MM-DD date`
  if (until === null)
    return `--until ${JSON.stringify(args.until)} is not an RFC 3339 date-time or a YYYY-MM-DD date`
  if (since >= until) return '--since is not before --until'
  // whole UTC days: the unit written, skipped and resumed
  const first = Math.floor(since / DAY_MS) * DAY_MS
  const end = Math.ceil(until / DAY_MS) * DAY_MS
  // a day is over once its last contests have settled: the venues' settled listings are asked up to
  // this long after the day (kalshi-history.ts), and a day written early would never be fetched again
  if (end + DAY_SETTLED_AFTER_MS > now)
    return `--until reaches into ${new Date(end - DAY_MS).toISOString().slice(0, 10)}, a day not over yet (days are imported whole, from an hour after they end)`
  const days: number[] = []
  for (let d = first; d < end; d += DAY_MS) days.push(d)
  return {
    venue: venue.name,
    series,
    sources: [...new Set(sources)] as SpotSourceName[],
    days,
    out: args.out,
  }
}

/** Closes before a day's first contest that the longest-looking model reads (a day and 5 minutes for v2). */
export function warmUpMinutes(): number {
  return Math.max(...MODEL_NAMES.map((name) => spotKeepMinutes(createReadingModel(name))))
}

export async function runHistoryImport(
  config: Config,
  args: HistoryImportArgs,
  io: HistoryImportIo,
): Promise<number> {
  const plan = planImport(args, io.now())
  if (typeof plan === 'string') {
    io.stderr.write(`contest-signals history import: ${plan} (see contest-signals history import --help)\n`)
    return 2
  }
  const logger = createLogger(config.logLevel === 'silent' ? 'silent' : 'warn', io.stderr)
  const counts: HttpCounts = { requests: 0, retries: 0 }
  const host = (name: string, baseUrl: string, perSecond: number) =>
    createHistoryHost({ name, baseUrl, perSecond, counts, logger, clock: systemClock })
  const tty = io.stderr.isTTY === true
  const clear = () => tty && io.stderr.write('\r\x1b[K')
  const warn = (message: string) => {
    clear()
    io.stderr.write(`contest-signals history import: warning: ${message}\n`)
  }

  // asks nothing until a day is fetched: a run whose days are all written sends no request at all
  const venue: VenueHistory = VENUE_KINDS[plan.venue].createHistory(plan.series, host, config, io.now)
  const spot: SpotHistory[] = plan.sources.map((name) =>
    createSpotHistory({
      name,
      host: host(name, config.feedUrls[name].rest, SPOT_REQUESTS_PER_SEC[name]),
      now: io.now,
      warn,
    }),
  )
  const warmUpMs = warmUpMinutes() * MINUTE_MS
  const totals: ImportTotals = emptyTotals()
  const importedOn = new Date(io.now()).toISOString().slice(0, 10)
  // the bar is redrawn while a day is fetched, so a slow day still shows its requests climbing
  let drawn = { done: 0, day: '' }
  const draw = () => {
    if (tty)
      io.stderr.write(`\r\x1b[K${progressBar(drawn.done, plan.days.length, drawn.day, counts.requests)}`)
  }
  const redraw = tty ? setInterval(draw, PROGRESS_EVERY_MS) : null

  try {
    try {
      await mkdir(plan.out, { recursive: true })
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      throw new HistoryError(
        `--out ${plan.out}`,
        code === 'EEXIST' || code === 'ENOTDIR'
          ? 'is a file, not a directory: name a directory for the day files'
          : `cannot be made: ${(err as Error).message}`,
      )
    }
    for (const [i, dayStart] of plan.days.entries()) {
      const dayName = new Date(dayStart).toISOString().slice(0, 10)
      drawn = { done: i, day: dayName }
      draw()
      const written = await writtenDayHeader(plan.out, dayStart)
      if (written !== null) {
        // a replay of DIR reads every day as one tape: another venue's or series' day cannot join it
        if (written.venue !== plan.venue || !written.series.includes(plan.series))
          throw new HistoryError(
            `${plan.out}/${dayFileName(dayStart)}`,
            `already holds a ${written.venue} ${written.series.join(',')} day; import ${plan.venue} ${plan.series} into another --out`,
          )
        totals.daysSkipped++
        continue
      }
      // the venue and each exchange have their own hosts and pacers: fetched side by side
      const [day, ...closes] = await Promise.all([
        venue.day(dayStart),
        ...spot.map((s) => s.closes(dayStart - warmUpMs, dayStart + DAY_MS)),
      ])
      const pending = day.pending ?? []
      if (pending.length > 0) {
        warn(
          `${dayName} left for a later run: ${pending.length} ${pending.length === 1 ? 'window' : 'windows'} not resolved yet (${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', …' : ''})`,
        )
        totals.daysPending++
        continue
      }
      const records: TapeRecord[] = [...day.records]
      for (const [j, source] of spot.entries()) {
        const byMinute = closes[j] as Map<number, number>
        const warm: [number, number][] = []
        for (let m = dayStart - warmUpMs; m < dayStart; m += MINUTE_MS) {
          const close = byMinute.get(m)
          if (close !== undefined) warm.push([m, close])
        }
        if (warm.length > 0) records.push({ t: dayStart, k: 'closes', src: source.name, c: warm })
        for (let m = dayStart; m < dayStart + DAY_MS; m += MINUTE_MS) {
          const close = byMinute.get(m)
          if (close === undefined) {
            totals.gaps++
            continue
          }
          records.push(minuteCloseRecord(source.name, m, close))
          totals.spotMinutes++
        }
      }
      const header: TapeHeader = {
        tape: 1,
        venue: plan.venue,
        series: [plan.series],
        sources: plan.sources,
        from: new Date(dayStart).toISOString(),
        to: new Date(dayStart + DAY_MS).toISOString(),
        origin: `imported from ${venue.origin} and ${plan.sources.join(', ')} one-minute candles on ${importedOn}`,
        grain: MINUTE_GRAIN,
      }
      await writeDayFile(plan.out, dayStart, header, records)
      totals.daysWritten++
      totals.contests += day.contests
      totals.books += day.books
      totals.gaps += day.gaps
    }
  } catch (err) {
    clear()
    if (!(err instanceof HistoryError)) throw err
    io.stderr.write(`contest-signals history import: ${err.message}\n`)
    return 1
  } finally {
    if (redraw) clearInterval(redraw)
  }
  clear()
  totals.requests = counts.requests
  totals.retries = counts.retries
  io.stdout.write(`${summaryLine(plan.venue, plan.series, plan.out, totals)}\n`)
  return 0
}
