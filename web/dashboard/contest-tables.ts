// The live contest's panel with its signals, and the table of the last settled contests: what the API
// said of them, drawn into the page. Which contest is live, and when to draw, is app.ts's.

import { $, cell, fmt2, markOverflow, span, tickerCell, time, utc } from './dom.ts'
import { venueRefsLine } from './domain/venue-refs.ts'
import { dollars, strikeText } from './money.ts'
import type { ContestJson, SignalJson } from './types.ts'

function signalRow(s: SignalJson, fresh: boolean): HTMLTableRowElement {
  const tr = document.createElement('tr')
  tr.dataset.raisedAt = s.raised_at
  if (fresh) tr.className = 'fresh'
  const raised = cell(time(s.raised_at))
  raised.title = s.raised_at
  tr.append(
    raised,
    cell(s.side, s.side),
    cell(fmt2(s.confidence)),
    cell(String(s.entry_price_cents)),
    cell(fmt2(s.edge_cents)),
    cell(s.outcome, s.outcome),
  )
  return tr
}

function noSignalsRow(): HTMLTableRowElement {
  const tr = document.createElement('tr')
  tr.className = 'empty'
  const td = cell('No signals yet on this contest.', 'muted')
  td.colSpan = 6
  tr.append(td)
  return tr
}

/** The live panel shows `contest`, or `none` in its place (the API has none; "—": nothing read yet). */
export function showLiveContest(contest: ContestJson | null, none: string): void {
  $('live-ticker').textContent = contest?.ticker ?? none
  $('live-strike').textContent = contest ? strikeText(contest.strike_price_dollars) : '—'
  $('live-closes').textContent = contest ? utc(contest.window.expires_at) : '—'
  $('live-venue').textContent = contest ? venueRefsLine(contest.venue, contest.venue_refs) : '—'
  const body = $('live-signals').querySelector('tbody')!
  const rows = [...(contest?.signals ?? [])].reverse().map((s) => signalRow(s, false))
  // a contest just opened has none yet (the first reading comes a minute in): say so, not an empty table
  if (contest && rows.length === 0) rows.push(noSignalsRow())
  body.replaceChildren(...rows)
  markOverflow()
}

/** A signal raised on the contest shown, on top; its strike may have been published meanwhile. */
export function addLiveSignal(signal: SignalJson, contest: ContestJson): void {
  $('live-strike').textContent = strikeText(contest.strike_price_dollars)
  const body = $('live-signals').querySelector('tbody')!
  body.querySelector('tr.empty')?.remove()
  // a resumed stream never repeats an event, but a snapshot after a reconnect may: one row per reading
  if (body.querySelector(`tr[data-raised-at="${CSS.escape(signal.raised_at)}"]`)) return
  body.prepend(signalRow(signal, true))
  markOverflow()
}

/** The settled table shows `contests`, each with its graded signals counted; `none` when there are none. */
export function showSettled(contests: readonly ContestJson[], none: string): void {
  const rows = contests.map((c) => {
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
      tickerCell(c.ticker),
      cell(c.settled_side ?? 'void', c.settled_side ?? 'void'),
      cell(c.settled_price_dollars == null ? '—' : dollars(c.settled_price_dollars)),
      graded,
    )
    return tr
  })
  if (rows.length === 0 && none) {
    const tr = document.createElement('tr')
    const td = cell(none, 'muted')
    td.colSpan = 4
    tr.append(td)
    rows.push(tr)
  }
  $('settled-table')
    .querySelector('tbody')!
    .replaceChildren(...rows)
  markOverflow()
}
