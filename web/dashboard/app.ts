// The dashboard: the live contest of a series and its signals as they arrive over the stream, the last
// settled contests, and what thresholds would have paid over a chosen window; with several series
// (one per venue), the same quarter hour on each venue side by side. It respects the rate limit: one
// history read per window change and one stream per series for live data, never polling the API.
// The status line says what the page is waiting for (rate limited, the service unreachable, the stream
// down) and for how long; every wait ends in a retry, and a new key clears what the last one showed.
import { analyse, type Filter, toBacktestContests } from './analysis.ts'
import { clearAnalysisView, redrawChart, refitChart, showAnalysis } from './analysis-view.ts'
import { ApiError, type CallOptions, getJson, settledBetween } from './api.ts'
import { showSeries } from './calibration-chart.ts'
import { addLiveSignal, showLiveContest, showSettled } from './contest-tables.ts'
import { $, markOverflow, utc } from './dom.ts'
import { type Wait, waitText } from './retry.ts'
import { createServerClock, RATE_SPAN_MS } from './server-clock.ts'
import { openStream, type StreamEvent, type StreamState } from './sse.ts'
import type { ContestJson, SignalJson } from './types.ts'
import { createVenueView, type VenueView } from './venues.ts'

const KEY_STORAGE = 'contest-signals.key'
const SERIES_STORAGE = 'contest-signals.series'
const THEME_STORAGE = 'contest-signals.theme'
const SETTLED_SHOWN = 10
/** The last settled contests as shown: what a failed re-read keeps, with the new settlement on top. */
let settledShown: readonly ContestJson[] = []

/** A wait the status line counts down: what waits, why, and until when (page clock). */
type Waiting = { wait: Wait; until: number }

type Session = {
  key: string
  /** the first series given: the live panel, the settled list and the analysis follow it */
  series: string
  /** every series given, as the status line names them */
  label: string
  stream: { close(): void } | null
  live: ContestJson | null
  /** with several series: the side-by-side view, and the streams of the series after the first */
  venues: VenueView | null
  otherStreams: { close(): void }[]
  /** aborted when the session ends: its calls stop waiting and retrying, and render nothing */
  abort: AbortController
  /** false until the first view (live contest and settled list) has been read */
  connected: boolean
  streamState: StreamState | null
  /** what the first view's calls, the stream and the history read are waiting for, if anything */
  waits: { firstView: Waiting | null; stream: Waiting | null; history: Waiting | null }
  historyError: string | null
}
let session: Session | null = null
/** What the status line says with no session: the prompt, a refused key, "Key forgotten." */
let notice = $('status').textContent ?? ''
/** The settled contests of the window shown; null while none is (a window being read, or none asked). */
let history: ReturnType<typeof toBacktestContests> | null = null
/** The history read under way: a newer window (or a new session) cancels it, so it spends no more tokens. */
let historyRead: AbortController | null = null

// ---- the server's clock: with a simulator running faster than the wall clock, contest times are on
// its virtual clock, so "time left" is measured against the health check's time, which costs no token
const clock = createServerClock()
/** What the health check last said, when it was not "ok": "unavailable (store unavailable)" */
let serviceTrouble: string | null = null
function serverNow(): number {
  return clock.now(Date.now())
}
async function syncClock(): Promise<void> {
  try {
    const askedAt = Date.now()
    const res = await fetch('/v1/health', { cache: 'no-store' })
    const { time, status, checks } = (await res.json()) as {
      time: string
      status?: string
      checks?: Record<string, unknown>
    }
    const receivedAt = Date.now()
    // a stream kept open by its keep-alives carries nothing while the store is down: say so
    const trouble = Object.entries(checks ?? {})
      .filter(([, v]) => typeof v === 'string' && v !== 'ok')
      .map(([name, v]) => `${name} ${v}`)
    const said =
      status && status !== 'ok' ? `${status}${trouble.length ? ` (${trouble.join(', ')})` : ''}` : null
    if (said !== serviceTrouble) {
      serviceTrouble = said
      renderStatus()
    }
    clock.observe(Date.parse(time), askedAt, receivedAt)
    showClockRate()
    tickCountdown()
  } catch {
    // the next sync tries again; the countdown keeps extrapolating meanwhile
  }
  // the speed is measured across RATE_SPAN_MS at least: until it is, ask again once that has passed
  // rather than count a simulator's minutes as wall minutes until the next regular ask
  if (clock.rate === null && !rateAskPending) {
    rateAskPending = true
    setTimeout(() => {
      rateAskPending = false
      void syncClock()
    }, RATE_SPAN_MS + 250)
  }
}
let rateAskPending = false
function showClockRate(): void {
  const rate = clock.rate
  if (rate === null) return
  $('live-left').title =
    rate === 1
      ? "The service's clock keeps the wall clock's pace."
      : `The service's clock runs ${rate}× the wall clock (a simulator).`
}

// ---- the status line: with a session, what it is doing and waiting for; without one, the notice
function renderStatus(): void {
  const s = session
  if (!s) {
    $('status').textContent = notice
    return
  }
  const waiting = (w: Waiting) => waitText(w.wait, w.until)
  if (s.streamState === 'waiting' && s.waits.stream)
    $('stream-state').textContent = `waiting (${waiting(s.waits.stream)})`
  const parts: string[] = []
  const { firstView, stream, history } = s.waits
  if (!s.connected) parts.push(`Connecting to ${s.label}…${firstView ? ` ${cap(waiting(firstView))}.` : ''}`)
  else if (s.streamState === 'open') parts.push(`Connected to ${s.label}.`)
  else if (stream?.wait.reason === 'rate-limited') parts.push(`Live stream: ${waiting(stream)}.`)
  else if (stream) parts.push(`Live stream down: ${waiting(stream)}.`)
  else parts.push(`Opening the live stream of ${s.series}…`)
  if (history) parts.push(`History: ${waiting(history)}.`)
  else if (s.historyError) parts.push(`History could not be read: ${s.historyError}`)
  if (s.connected && serviceTrouble)
    parts.push(`The service reports its health ${serviceTrouble}: what is shown may be out of date.`)
  $('status').textContent = parts.join(' ')
}
const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** The session ended (or never began): say `text`, and keep it until the next connect. */
function status(text: string): void {
  notice = text
  renderStatus()
}

/** Call options of `s` that report a wait in its `slot` of the status line. */
function waitsFor(s: Session, slot: keyof Session['waits']): CallOptions {
  return {
    signal: s.abort.signal,
    onWait: (wait) => {
      if (session !== s) return
      s.waits[slot] = wait ? { wait, until: Date.now() + wait.ms } : null
      renderStatus()
    },
  }
}

/** The live contest, or `none` said in its place (the API has none; "—": nothing read yet). */
function renderLive(contest: ContestJson | null, none = 'no live contest'): void {
  if (session) session.live = contest
  showLiveContest(contest, none)
  tickCountdown()
}

function tickCountdown(): void {
  const live = session?.live
  if (!live) {
    $('live-left').textContent = '—'
    return
  }
  // until the service's pace is measured a countdown could run 60 times too slow (a simulator): none
  if (clock.rate === null) {
    $('live-left').textContent = '…'
    $('live-left').title = "Measuring the pace of the service's clock (a simulator may run faster)."
    return
  }
  const expires = Date.parse(live.window.expires_at)
  // never more than the window itself: a clock read just before a turnover must not show 16 minutes
  const left = Math.min(expires - serverNow(), expires - Date.parse(live.window.opens_at))
  const s = Math.round(left / 1000)
  // past its close the contest awaits its result (and the stream the next contest): no frozen 0:00
  $('live-left').textContent = s <= 0 ? 'closed' : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
}

function renderSettled(contests: readonly ContestJson[], none = 'No settled contests yet.'): void {
  settledShown = contests.slice(0, SETTLED_SHOWN)
  showSettled(settledShown, none)
}

/** Nothing of a previous key stays on screen: the live contest, signals, settled list and analysis. */
function clearView(): void {
  renderLive(null, '—')
  renderSettled([], '')
  clearAnalysis()
  $('window-range').textContent = ''
  $('venues').hidden = true
  delete $('venues').dataset.streams
  $('venue-windows').replaceChildren()
  $('stream-state').textContent = 'not connected'
  delete $('stream-state').dataset.state
  markOverflow()
}

/** No numbers: none read yet, or those shown belong to a window no longer asked for. */
function clearAnalysis(): void {
  history = null
  clearAnalysisView()
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
  const s = session
  if (!s) return
  historyRead?.abort()
  const reading = new AbortController()
  historyRead = reading
  // what the last window showed is not this window's: no number stays under a range it was not read for
  clearAnalysis()
  s.waits.history = null
  s.historyError = null
  renderStatus()
  await syncClock()
  if (session !== s || historyRead !== reading) return
  const windowMs = Number(($('window') as HTMLSelectElement).value)
  const before = new Date(serverNow()).toISOString()
  const since = new Date(Date.parse(before) - windowMs).toISOString()
  $('window-range').textContent =
    `Reading settled contests with expires_at from ${utc(since)} to ${utc(before)}…`
  try {
    const opts = waitsFor(s, 'history')
    const read = await settledBetween(s.series, since, before, s.key, {
      ...opts,
      signal: AbortSignal.any([s.abort.signal, reading.signal]),
    })
    // a newer window (or another session) took over meanwhile: its read renders, this one does not
    if (session !== s || historyRead !== reading) return
    history = toBacktestContests(s.series, read)
    showAnalysis(analyse(history, currentFilter()))
    $('window-range').textContent = `Settled contests with expires_at from ${utc(since)} to ${utc(before)}.`
    $('window-range').dataset.since = since
    $('window-range').dataset.before = before
    $('analysis').dataset.loaded = before
  } catch (err) {
    if (session !== s || historyRead !== reading) return
    s.historyError = (err as Error).message
    renderStatus()
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
      addLiveSignal(signal, contest)
    }
  } else if (e.event === 'contest.settled') {
    refreshSettled(session, data as ContestJson)
  }
}

/** The settled list read again after a settlement: one read at a time, one more if others settled meanwhile. */
let refreshing: { session: Session; again: boolean } | null = null
function refreshSettled(s: Session, settled: ContestJson): void {
  if (refreshing?.session === s) {
    refreshing.again = true
    return
  }
  refreshing = { session: s, again: false }
  void getJson<{ contests: ContestJson[] }>(
    `/v1/contests?${new URLSearchParams({ series: s.series, limit: String(SETTLED_SHOWN) })}`,
    s.key,
    { signal: s.abort.signal },
  )
    .then((page) => {
      if (session === s) renderSettled(page.contests)
    })
    .catch(() => {
      // the list could not be read again: the one settled goes on top of what was shown
      if (session === s) renderSettled([settled, ...settledShown.filter((c) => c.ticker !== settled.ticker)])
    })
    .finally(() => {
      const again = refreshing?.session === s && refreshing.again
      if (refreshing?.session === s) refreshing = null
      if (again && session === s) refreshSettled(s, settled)
    })
}

/** The live contest of `series` (null when none) and its last settled ones. */
async function firstView(
  series: string,
  key: string,
  opts: CallOptions,
): Promise<[ContestJson | null, ContestJson[]]> {
  const [active, settled] = await Promise.all([
    getJson<ContestJson>(`/v1/contests/active?series=${encodeURIComponent(series)}`, key, opts).catch(
      (err) => {
        if (err instanceof ApiError && err.status === 404) return null
        throw err
      },
    ),
    getJson<{ contests: ContestJson[] }>(
      `/v1/contests?${new URLSearchParams({ series, limit: String(SETTLED_SHOWN) })}`,
      key,
      opts,
    ),
  ])
  return [active, settled.contests]
}

/** Ends the session: its streams close, its waiting calls stop, nothing it started renders again. */
function endSession(): void {
  session?.stream?.close()
  for (const stream of session?.otherStreams ?? []) stream.close()
  session?.abort.abort()
  session = null
}

/** The key was refused: what it (or the key before it) showed goes, and the page says why. */
function refused(): void {
  endSession()
  sessionStorage.removeItem(KEY_STORAGE)
  clearView()
  status('That key was refused (401). Check it and try again.')
}

async function connect(key: string, seriesList: string): Promise<void> {
  endSession()
  // what a previous key (or series) showed is not this session's: it goes at once
  clearView()
  const allSeries = [...new Set(seriesList.split(',').map((s) => s.trim()))].filter(Boolean)
  const series = allSeries[0] ?? ''
  const several = allSeries.length > 1
  $('venues').hidden = !several
  const s: Session = {
    key,
    series,
    label: allSeries.join(', '),
    stream: null,
    live: null,
    venues: several ? createVenueView($('venue-windows'), allSeries, serverNow) : null,
    otherStreams: [],
    abort: new AbortController(),
    connected: false,
    streamState: null,
    waits: { firstView: null, stream: null, history: null },
    historyError: null,
  }
  session = s
  sessionStorage.setItem(KEY_STORAGE, key)
  sessionStorage.setItem(SERIES_STORAGE, allSeries.join(','))
  renderStatus()
  await syncClock()
  if (session !== s) return
  try {
    // a 429, a 503 or an unreachable service is waited out and tried again (the status says which)
    const opts = waitsFor(s, 'firstView')
    const views = await Promise.all(allSeries.map((one) => firstView(one, key, opts)))
    if (session !== s) return
    const [active, settled] = views[0]!
    renderLive(active)
    renderSettled(
      settled,
      active === null
        ? `No contests of ${allSeries[0]} at all: is the series name right? (SERIES on the service names those it follows.)`
        : undefined,
    )
    if (s.venues) {
      views.forEach(([live, done], i) => {
        for (const c of [...done, ...(live ? [live] : [])]) s.venues?.put(allSeries[i]!, c)
      })
      s.venues.render()
    }
  } catch (err) {
    if (session !== s) return
    if (err instanceof ApiError && err.status === 401) return refused()
    endSession()
    clearView()
    status(`Could not connect: ${(err as Error).message}`)
    return
  }
  s.connected = true
  s.waits.firstView = null
  renderStatus()
  // one stream per further series, scoped by it: the side-by-side view says when all are open
  const otherStates = new Map<string, string>()
  for (const other of allSeries.slice(1)) {
    s.otherStreams.push(
      openStream({
        url: `/v1/stream/contests?series=${encodeURIComponent(other)}`,
        key,
        onEvent: (e) => {
          if (session === s) toVenueView(other, e)
        },
        onState: (state) => {
          if (session !== s) return
          otherStates.set(other, state)
          const open =
            otherStates.size === allSeries.length - 1 && [...otherStates.values()].every((v) => v === 'open')
          $('venues').dataset.streams = open ? 'open' : state
        },
      }),
    )
  }
  s.stream = openStream({
    url: `/v1/stream/contests?series=${encodeURIComponent(series)}`,
    key,
    onEvent: (e) => {
      if (session === s) onStreamEvent(e)
    },
    onState: (state, wait) => {
      if (session !== s) return
      if (state === 'unauthorized') return refused()
      s.streamState = state
      // a wait is shown until the next wait or the stream opens; a reconnect attempt keeps it
      if (state === 'open') s.waits.stream = null
      else if (wait) s.waits.stream = { wait, until: Date.now() + wait.ms }
      $('stream-state').textContent = state
      $('stream-state').dataset.state = state
      // a wait's seconds: written by renderStatus, each second, from the same wait as the status line's
      renderStatus()
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
    resizing = setTimeout(refitChart, 100)
  }).observe($('analysis'))
  // before the next paint: a table that comes to overflow its box shows the hint in the same frame
  const overflow = new ResizeObserver(markOverflow)
  for (const box of document.querySelectorAll('.scroll')) {
    overflow.observe(box)
    overflow.observe(box.querySelector('table')!)
  }
  $('key-form').addEventListener('submit', (ev) => {
    ev.preventDefault()
    void connect(($('key') as HTMLInputElement).value.trim(), ($('series') as HTMLInputElement).value.trim())
  })
  $('forget').addEventListener('click', () => {
    sessionStorage.removeItem(KEY_STORAGE)
    endSession()
    clearView()
    ;($('key') as HTMLInputElement).value = ''
    status('Key forgotten.')
  })
  $('window').addEventListener('change', () => void loadWindow())
  for (const box of document.querySelectorAll<HTMLInputElement>('#chart-series input')) {
    const indices = (box.dataset.series ?? '').split(' ').map(Number)
    box.addEventListener('change', () => showSeries(indices, box.checked))
  }
  for (const id of ['min-confidence', 'min-edge', 'side', 'after-fee']) {
    // filters recompute from the window already read: no request
    $(id).addEventListener('input', () => {
      if (history) showAnalysis(analyse(history, currentFilter()))
    })
  }
  setInterval(() => {
    tickCountdown()
    // the seconds of a wait count down
    if (session && Object.values(session.waits).some(Boolean)) renderStatus()
  }, 1000)
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
