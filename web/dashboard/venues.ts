// The same quarter hour on each venue, side by side (decisions §14): with several series given (say
// KXBTC15M on Kalshi and btc-updown-15m on Polymarket), each window gets one card with a column per
// series — its strike (or that the venue has not published it yet), the latest reading's side,
// confidence and the ask it was read at, and the settlement. Contests are paired by their window's
// instants (domain/venue-windows.ts), never by ticker.

import { factItem } from './dom.ts'
import { formatInstant } from './domain/contest-view.ts'
import { venueRefsLine } from './domain/venue-refs.ts'
import { alignByWindow, latestSignal } from './domain/venue-windows.ts'
import { VENUE_TITLES, venueOfSeries } from './domain/venues.ts'
import { dollars, strikeText } from './money.ts'
import type { ContestJson } from './types.ts'

/** Windows shown: the live one and the last few settled. */
const WINDOWS_SHOWN = 6
/** Contests kept per series (a stream running for hours must not grow the page without bound). */
const KEPT_PER_SERIES = 24

export type VenueView = {
  /** the contest as the API last showed it (live, from the stream, or settled); replaces by ticker */
  put(series: string, contest: ContestJson): void
  render(): void
}

export function createVenueView(root: HTMLElement, series: readonly string[], now: () => number): VenueView {
  const bySeries = new Map<string, Map<string, ContestJson>>(series.map((s) => [s, new Map()]))

  function put(s: string, contest: ContestJson): void {
    const contests = bySeries.get(s)
    if (!contests) return
    contests.set(contest.ticker, contest)
    if (contests.size > KEPT_PER_SERIES) {
      const oldest = [...contests.values()].sort((a, b) => a.window.opens_at.localeCompare(b.window.opens_at))
      for (const c of oldest.slice(0, contests.size - KEPT_PER_SERIES)) contests.delete(c.ticker)
    }
  }

  function render(): void {
    const rows = alignByWindow(series.map((s) => [...(bySeries.get(s)?.values() ?? [])])).slice(
      0,
      WINDOWS_SHOWN,
    )
    root.replaceChildren(
      ...rows.map((row) => {
        const article = document.createElement('article')
        article.className = 'window'
        article.dataset.opensAt = formatInstant(row.opensAt)
        article.dataset.expiresAt = formatInstant(row.expiresAt)
        const heading = document.createElement('h3')
        heading.textContent = windowTitle(row.opensAt, row.expiresAt, now())
        const pair = document.createElement('div')
        pair.className = 'venue-pair'
        pair.style.setProperty('--columns', String(row.contests.length))
        pair.append(...row.contests.map((contest, i) => venueColumn(series[i]!, contest, now())))
        article.append(heading, pair)
        return article
      }),
    )
  }

  return { put, render }
}

function windowTitle(opensAt: number, expiresAt: number, now: number): string {
  const from = formatInstant(opensAt)
  const to = formatInstant(expiresAt)
  const span = `${from.slice(0, 10)} ${from.slice(11, 16)}–${to.slice(11, 16)} UTC`
  return now < opensAt ? `${span} · upcoming` : now < expiresAt ? `${span} · live` : span
}

function venueColumn(series: string, contest: ContestJson | null, now: number): HTMLElement {
  const col = document.createElement('div')
  col.className = 'venue-col'
  col.dataset.series = series
  const title = document.createElement('h4')
  // the venue the API names for the contest (the simulator lists any series as Kalshi markets); the
  // series prefix only when there is none to ask
  const venue = contest?.venue ?? venueOfSeries(series)
  title.textContent = venue ? `${VENUE_TITLES[venue]} ` : ''
  const name = document.createElement('span')
  name.className = 'muted'
  name.textContent = series
  title.append(name)
  col.append(title)
  if (!contest) {
    const none = document.createElement('p')
    none.className = 'muted'
    none.textContent = 'not listed on this venue'
    col.append(none)
    return col
  }
  col.dataset.ticker = contest.ticker
  const reading = latestSignal(contest)
  const dl = document.createElement('dl')
  dl.className = 'facts'
  const fact = (id: string, label: string, value: string, cls = '') =>
    dl.append(factItem(id, label, value, cls))
  fact('ticker', 'Ticker', contest.ticker)
  fact(
    'strike',
    'Strike',
    strikeText(contest.strike_price_dollars),
    contest.strike_price_dollars === null ? 'muted' : '',
  )
  fact(
    'reading',
    'Latest confidence',
    reading ? `${reading.side} · ${reading.confidence.toFixed(2)}` : 'none yet',
    reading?.side ?? 'muted',
  )
  // the API carries the ask of the side the reading took (its entry price), not the other side's
  fact('ask', 'Ask on that side', reading ? `${reading.entry_price_cents}¢` : '—')
  fact('edge', 'Edge', reading ? `${reading.edge_cents.toFixed(2)}¢` : '—')
  fact(
    'result',
    'Result',
    result(contest, now),
    contest.settled_side ?? (contest.state === 'settled' ? 'void' : 'pending'),
  )
  col.append(dl)
  const refs = document.createElement('p')
  refs.className = 'venue-refs'
  refs.dataset.fact = 'venue'
  refs.textContent = venueRefsLine(contest.venue, contest.venue_refs)
  col.append(refs)
  return col
}

function result(contest: ContestJson, now: number): string {
  if (contest.state === 'settled') {
    const price =
      contest.settled_price_dollars === null ? '' : ` at $${dollars(contest.settled_price_dollars)}`
    return contest.settled_side === null ? 'void' : `${contest.settled_side}${price}`
  }
  return Date.parse(contest.window.expires_at) <= now ? 'awaiting the venue’s result' : 'live'
}
