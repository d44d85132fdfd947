// The page's small building blocks: an element by id, table cells and spans, the two number and time
// formats every table uses, and the hint a table wider than its box gets.

export const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T

export const fmt2 = (n: number) => n.toFixed(2)

/** hh:mm:ss of an instant, in UTC (the column headers say so) */
export const time = (iso: string) => iso.slice(11, 19)

/** An instant as the page writes it outside the tables: `2026-11-23 17:15:00 UTC` */
export const utc = (iso: string) => `${iso.slice(0, 10)} ${time(iso)} UTC`

export function cell(text: string, cls = ''): HTMLTableCellElement {
  const td = document.createElement('td')
  td.textContent = text
  if (cls) td.className = cls
  return td
}

export function span(text: string, cls: string): HTMLSpanElement {
  const el = document.createElement('span')
  el.textContent = text
  el.className = cls
  return el
}

/** A ticker that may break after its hyphens on a narrow screen, never inside a date or a number. */
export function tickerCell(ticker: string): HTMLTableCellElement {
  const td = document.createElement('td')
  const parts = ticker.split('-')
  parts.forEach((part, i) => {
    td.append(i < parts.length - 1 ? `${part}-` : part)
    if (i < parts.length - 1) td.append(document.createElement('wbr'))
  })
  return td
}

/**
 * A table wider than its box scrolls sideways: the CSS says so above it and keeps its caption (as wide
 * as the box, `--box`) and its first column in view.
 */
export function markOverflow(): void {
  for (const el of document.querySelectorAll<HTMLElement>('.scroll')) {
    el.classList.remove('overflowing')
    const overflowing = el.scrollWidth > el.clientWidth + 1
    el.classList.toggle('overflowing', overflowing)
    if (overflowing) el.style.setProperty('--box', `${el.clientWidth}px`)
  }
}

/** One fact of a `<dl>`: its label and value, the value named by `data-fact` for tests and styles. */
export function factItem(id: string, label: string, value: string, cls = ''): HTMLDivElement {
  const div = document.createElement('div')
  const dt = document.createElement('dt')
  dt.textContent = label
  const dd = document.createElement('dd')
  dd.textContent = value
  dd.dataset.fact = id
  if (cls) dd.className = cls
  div.append(dt, dd)
  return div
}
