// The dashboard: the live contest of a series and its signals as they arrive over the stream, the last
// settled contests, and what thresholds would have paid over a chosen window; with several series
// (one per venue), the same quarter hour on each venue side by side. It respects the rate limit: one
// history read per window change and one stream per series for live data, never polling the API.
import { type Analysis, analyse, type Filter, toBacktestContests } from './analysis.ts'
import { ApiError, getJson, settledBetween } from './api.ts'
import { drawCalibration } from './calibration-chart.ts'
import { venueRefsLine } from './domain/venue-refs.ts'
import { openStream, type StreamEvent } from './sse.ts'
import type { ContestJson, SignalJson } from './types.ts'
import { createVenueView, type VenueView } from './venues.ts'

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T
const KEY_STORAGE = 'contest-signals.key'
const SERIES_STORAGE = 'contest-signals.series'
const THEME_STORAGE = 'contest-signals.theme'
const SETTLED_SHOWN = 10

type Session = {
  key: string
  /** the first series given: the live panel, the settled list and the analysis follow it */
  series: string
  stream: { close(): void } | null
  live: ContestJson | null
  /** with several series: the side-by-side view, and the streams of the series after the first */
  venues: VenueView | null
  otherStreams: { close(): void }[]
}
let session: Session | null = null
let history: ReturnType<typeof toBacktestContests> = []
let range = { since: '', before: '' }
let lastAnalysis: Analysis | null = null

// ---- the server's clock: with a simulator running faster than the wall clock, contest times are on
// its virtual clock, so "time left" is measured against the health check's time, which costs no token
const clock = { serverAt: 0, localAt: 0, rate: 1 }
function serverNow(): number {
  if (clock.localAt === 0) return Date.now()
  return clock.serverAt + (Date.now() - clock.localAt) * clock.rate
}
async function syncClock(): Promise<void> {
  try {
    const res = await fetch('/v1/health', { cache: 'no-store' })
    const { time } = (await res.json()) as { time: string }
    const serverAt = Date.parse(time)
    const localAt = Date.now()
    if (clock.localAt !== 0 && localAt > clock.localAt) {
      const rate = (serverAt - clock.serverAt) / (localAt - clock.localAt)
      if (rate > 0.5) clock.rate = Math.round(rate)
    }
    clock.serverAt = serverAt
    clock.localAt = localAt
  } catch {
    // the next sync tries again; the countdown keeps extrapolating meanwhile
  }
}

// ---- rendering helpers
const fmt2 = (n: number) => n.toFixed(2)
const time = (iso: string) => iso.slice(11, 19)
function cell(text: string, cls = ''): HTMLTableCellElement {
  const td = document.createElement('td')
  td.textContent = text
  if (cls) td.className = cls
  return td
}
function span(text: string, cls: string): HTMLSpanElement {
  const el = document.createElement('span')
  el.textContent = text
  el.className = cls
  return el
}
function status(text: string): void {
  $('status').textContent = text
}

function signalRow(s: SignalJson, fresh: boolean): HTMLTableRowElement {
  const tr = document.createElement('tr')
  tr.dataset.raisedAt = s.raised_at
  if (fresh) tr.className = 'fresh'
  tr.append(
    cell(time(s.raised_at)),
    cell(s.side, s.side),
    cell(fmt2(s.confidence)),
    cell(String(s.entry_price_cents)),
    cell(fmt2(s.edge_cents)),
    cell(s.outcome, s.outcome),
  )
  return tr
}

function renderLive(contest: ContestJson | null): void {
  if (session) session.live = contest
  $('live-ticker').textContent = contest?.ticker ?? 'no live contest'
  $('live-strike').textContent =
    contest?.strike_price_dollars == null ? '—' : `$${contest.strike_price_dollars.toFixed(2)}`
  $('live-closes').textContent = contest ? contest.window.expires_at.replace('T', ' ') : '—'
  $('live-venue').textContent = contest ? venueRefsLine(contest.venue, contest.venue_refs) : '—'
  const body = $('live-signals').querySelector('tbody')!
  body.replaceChildren(...[...(contest?.signals ?? [])].reverse().map((s) => signalRow(s, false)))
  tickCountdown()
}

function addLiveSignal(signal: SignalJson): void {
  const body = $('live-signals').querySelector('tbody')!
  // a resumed stream never repeats an event, but a snapshot after a reconnect may: one row per reading
  if (body.querySelector(`tr[data-raised-at="${CSS.escape(signal.raised_at)}"]`)) return
  body.prepend(signalRow(signal, true))
}

function tickCountdown(): void {
  const live = session?.live
  if (!live) {
    $('live-left').textContent = '—'
    return
  }
  const left = Date.parse(live.window.expires_at) - serverNow()
  const s = Math.max(0, Math.round(left / 1000))
  $('live-left').textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
}

function renderSettled(contests: readonly ContestJson[]): void {
  const rows = contests.slice(0, SETTLED_SHOWN).map((c) => {
    const tr = document.createElement('tr')
    const count = (o: string) => String(c.signals.filter((s) => s.outcome === o).length)
    const graded = document.createElement('td')
    graded.append(
      span(count('win'), 'win'),
      ' / ',
      span(count('loss'), 'loss'),
      ' / ',
      span(count('void'), 'void'),
    )
    tr.append(
      cell(c.ticker),
      cell(c.settled_side ?? 'void', c.settled_side ?? 'void'),
      cell(c.settled_price_dollars == null ? '—' : c.settled_price_dollars.toFixed(2)),
      graded,
    )
    return tr
  })
  $('settled-table')
    .querySelector('tbody')!
    .replaceChildren(...rows)
}

function renderAnalysis(a: Analysis): void {
  const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`)
  const facts: Array<[string, string, string]> = [
    ['signals', 'Signals', String(a.signals)],
    ['wins', 'Won', String(a.wins)],
    ['losses', 'Lost', String(a.losses)],
    ['voids', 'Void', String(a.voids)],
    ['win-rate', 'Win rate', pct(a.winRate)],
    ['interval', '95% interval', a.winRate === null ? '—' : `${pct(a.winRateLow)} – ${pct(a.winRateHigh)}`],
    ['avg-entry', 'Avg entry ¢', a.avgEntryCents === null ? '—' : fmt2(a.avgEntryCents)],
    ['avg-edge', 'Claimed edge ¢', a.avgEdgeCents === null ? '—' : fmt2(a.avgEdgeCents)],
    ['realised-edge', 'Realised edge ¢', a.realisedEdgeCents === null ? '—' : fmt2(a.realisedEdgeCents)],
    [
      'profit',
      a.afterFee ? 'Profit ¢/contract after fee' : 'Profit ¢/contract',
      a.profitPerContractCents === null ? '—' : fmt2(a.profitPerContractCents),
    ],
    [
      'profit-interval',
      '95% interval (by contest)',
      a.profitLowCents === null || a.profitHighCents === null
        ? '—'
        : `${fmt2(a.profitLowCents)} – ${fmt2(a.profitHighCents)}`,
    ],
    ['brier', 'Brier score', a.brier === null ? '—' : a.brier.toFixed(4)],
  ]
  $('summary').replaceChildren(
    ...facts.map(([id, label, value]) => {
      const div = document.createElement('div')
      const dt = document.createElement('dt')
      dt.textContent = label
      const dd = document.createElement('dd')
      dd.textContent = value
      dd.dataset.fact = id
      div.append(dt, dd)
      return div
    }),
  )
  $('calibration-table')
    .querySelector('tbody')!
    .replaceChildren(
      ...a.calibration.map((b) => {
        const tr = document.createElement('tr')
        tr.dataset.bucket = b.label
        tr.append(
          cell(b.label),
          cell(String(b.count)),
          cell(String(b.wins)),
          cell(pct(b.winRate)),
          cell(b.winRate === null ? '—' : `${pct(b.low)} – ${pct(b.high)}`),
        )
        return tr
      }),
    )
  const grid = $('grid-table')
  const head = document.createElement('tr')
  head.append(cell('confidence \\ edge'), ...a.grid.edges.map((e) => cell(e)))
  grid.querySelector('thead')!.replaceChildren(head)
  grid.querySelector('tbody')!.replaceChildren(
    ...a.grid.rows.map((row) => {
      const tr = document.createElement('tr')
      tr.append(
        cell(row.minConfidence),
        ...row.cells.map((c) =>
          cell(
            c.count === 0 ? '—' : `${pct(c.winRate)} · ${fmt2(c.profitPerContractCents ?? 0)}¢ (${c.count})`,
          ),
        ),
      )
      return tr
    }),
  )
  lastAnalysis = a
  drawCalibration($('calibration-chart'), a.calibration)
}

/** The chart takes its colours and width when drawn: draw again when either changes. */
function redrawChart(): void {
  if (lastAnalysis) drawCalibration($('calibration-chart'), lastAnalysis.calibration)
}

function currentFilter(): Filter {
  const side = ($('side') as HTMLSelectElement).value
  return {
    minConfidence: Number(($('min-confidence') as HTMLInputElement).value || 0),
    minEdge: Number(($('min-edge') as HTMLInputElement).value || -100),
    side: side === 'up' || side === 'down' ? side : null,
    afterFee: ($('after-fee') as HTMLInputElement).checked,
  }
}

async function loadWindow(): Promise<void> {
  if (!session) return
  await syncClock()
  const windowMs = Number(($('window') as HTMLSelectElement).value)
  const before = new Date(serverNow()).toISOString()
  const since = new Date(Date.parse(before) - windowMs).toISOString()
  range = { since, before }
  $('window-range').textContent = `Settled contests with expires_at from ${since} to ${before}.`
  $('window-range').dataset.since = since
  $('window-range').dataset.before = before
  try {
    history = toBacktestContests(
      session.series,
      await settledBetween(session.series, since, before, session.key),
    )
    renderAnalysis(analyse(history, currentFilter()))
    $('analysis').dataset.loaded = range.before
  } catch (err) {
    status(`History could not be read: ${(err as Error).message}`)
  }
}

/** The side-by-side view takes every contest a stream shows, of any series it follows. */
function toVenueView(series: string, e: StreamEvent): void {
  if (!session?.venues) return
  const data = JSON.parse(e.data)
  const contest = (e.event === 'signal.emitted' ? data.contest : data) as ContestJson
  session.venues.put(series, contest)
  session.venues.render()
}

function onStreamEvent(e: StreamEvent): void {
  if (!session) return
  toVenueView(session.series, e)
  const data = JSON.parse(e.data)
  if (e.event === 'contest.opened') {
    renderLive(data as ContestJson)
  } else if (e.event === 'signal.emitted') {
    const { signal, contest } = data as { signal: SignalJson; contest: ContestJson }
    if (session.live?.ticker !== contest.ticker) renderLive(contest)
    else {
      session.live = contest
      $('live-strike').textContent =
        contest.strike_price_dollars == null ? '—' : `$${contest.strike_price_dollars.toFixed(2)}`
      addLiveSignal(signal)
    }
  } else if (e.event === 'contest.settled') {
    const settled = data as ContestJson
    void getJson<{ contests: ContestJson[] }>(
      `/v1/contests?${new URLSearchParams({ series: session.series, limit: String(SETTLED_SHOWN) })}`,
      session.key,
    )
      .then((page) => renderSettled(page.contests))
      .catch(() => renderSettled([settled]))
  }
}

/** The live contest of `series` (null when none) and its last settled ones. */
async function firstView(series: string, key: string): Promise<[ContestJson | null, ContestJson[]]> {
  const [active, settled] = await Promise.all([
    getJson<ContestJson>(`/v1/contests/active?series=${encodeURIComponent(series)}`, key).catch((err) => {
      if (err instanceof ApiError && err.status === 404) return null
      throw err
    }),
    getJson<{ contests: ContestJson[] }>(
      `/v1/contests?${new URLSearchParams({ series, limit: String(SETTLED_SHOWN) })}`,
      key,
    ),
  ])
  return [active, settled.contests]
}

function closeStreams(): void {
  session?.stream?.close()
  for (const stream of session?.otherStreams ?? []) stream.close()
}

async function connect(key: string, seriesList: string): Promise<void> {
  closeStreams()
  const allSeries = [...new Set(seriesList.split(',').map((s) => s.trim()))].filter(Boolean)
  const series = allSeries[0] ?? ''
  const several = allSeries.length > 1
  $('venues').hidden = !several
  session = {
    key,
    series,
    stream: null,
    live: null,
    venues: several ? createVenueView($('venue-windows'), allSeries, serverNow) : null,
    otherStreams: [],
  }
  sessionStorage.setItem(KEY_STORAGE, key)
  sessionStorage.setItem(SERIES_STORAGE, allSeries.join(','))
  status(`Connecting to ${allSeries.join(', ')}…`)
  await syncClock()
  try {
    const views = await Promise.all(allSeries.map((s) => firstView(s, key)))
    const [active, settled] = views[0]!
    renderLive(active)
    renderSettled(settled)
    if (session.venues) {
      views.forEach(([live, done], i) => {
        for (const c of [...done, ...(live ? [live] : [])]) session?.venues?.put(allSeries[i]!, c)
      })
      session.venues.render()
    }
  } catch (err) {
    const unauthorized = err instanceof ApiError && err.status === 401
    status(
      unauthorized
        ? 'That key was refused (401). Check it and try again.'
        : `Error: ${(err as Error).message}`,
    )
    if (unauthorized) sessionStorage.removeItem(KEY_STORAGE)
    session = null
    return
  }
  status(`Connected to ${allSeries.join(', ')}.`)
  // one stream per further series, scoped by it: the side-by-side view says when all are open
  const otherStates = new Map<string, string>()
  for (const other of allSeries.slice(1)) {
    session.otherStreams.push(
      openStream({
        url: `/v1/stream/contests?series=${encodeURIComponent(other)}`,
        key,
        onEvent: (e) => toVenueView(other, e),
        onState: (state) => {
          otherStates.set(other, state)
          const open =
            otherStates.size === allSeries.length - 1 && [...otherStates.values()].every((v) => v === 'open')
          $('venues').dataset.streams = open ? 'open' : state
        },
      }),
    )
  }
  session.stream = openStream({
    url: `/v1/stream/contests?series=${encodeURIComponent(series)}`,
    key,
    onEvent: onStreamEvent,
    onState: (state, detail) => {
      $('stream-state').textContent = detail ? `${state} (${detail})` : state
      $('stream-state').dataset.state = state
    },
  })
  await loadWindow()
}

function applyTheme(theme: string): void {
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme
  else delete document.documentElement.dataset.theme
}

function start(): void {
  const theme = localStorage.getItem(THEME_STORAGE) ?? 'auto'
  ;($('theme') as HTMLSelectElement).value = theme
  applyTheme(theme)
  $('theme').addEventListener('change', () => {
    const value = ($('theme') as HTMLSelectElement).value
    localStorage.setItem(THEME_STORAGE, value)
    applyTheme(value)
    redrawChart()
  })
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', redrawChart)
  let resizing: ReturnType<typeof setTimeout> | undefined
  new ResizeObserver(() => {
    clearTimeout(resizing)
    resizing = setTimeout(redrawChart, 100)
  }).observe($('analysis'))
  $('key-form').addEventListener('submit', (ev) => {
    ev.preventDefault()
    void connect(($('key') as HTMLInputElement).value.trim(), ($('series') as HTMLInputElement).value.trim())
  })
  $('forget').addEventListener('click', () => {
    sessionStorage.removeItem(KEY_STORAGE)
    closeStreams()
    session = null
    ;($('key') as HTMLInputElement).value = ''
    status('Key forgotten.')
  })
  $('window').addEventListener('change', () => void loadWindow())
  for (const id of ['min-confidence', 'min-edge', 'side', 'after-fee']) {
    // filters recompute from the window already read: no request
    $(id).addEventListener('input', () => renderAnalysis(analyse(history, currentFilter())))
  }
  setInterval(tickCountdown, 1000)
  // a live window turns to "awaiting the venue's result" at its close, with no event to say so
  setInterval(() => session?.venues?.render(), 5000)
  setInterval(() => void syncClock(), 10_000)
  const key = sessionStorage.getItem(KEY_STORAGE)
  const series = sessionStorage.getItem(SERIES_STORAGE)
  if (series) ($('series') as HTMLInputElement).value = series
  if (key) {
    ;($('key') as HTMLInputElement).value = key
    void connect(key, ($('series') as HTMLInputElement).value.trim())
  }
}

start()
