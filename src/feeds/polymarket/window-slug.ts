// Polymarket's 15-minute bitcoin windows by name (venue facts §3.1.2): the event slug carries the
// window's start in Unix seconds UTC, so the current, next and just-ended windows are computed, never
// searched for. DST touches only the titles, which are never read.

/** The series prefix and slug stem (decisions §14). */
export const POLYMARKET_BTC_15M = 'btc-updown-15m'
/** The venue's own series slug, for listings (venue facts §3.1.1). */
export const POLYMARKET_SERIES_SLUG = 'btc-up-or-down-15m'
export const WINDOW_S = 900
export const WINDOW_MS = WINDOW_S * 1000

const SLUG = /^btc-updown-15m-(\d{1,12})$/

/** Start (Unix s) of the window containing `atMs`. */
export function windowStartS(atMs: number): number {
  return Math.floor(atMs / WINDOW_MS) * WINDOW_S
}

export function slugForStart(startS: number): string {
  return `${POLYMARKET_BTC_15M}-${startS}`
}

/**
 * The window start (Unix s) a slug names, or null when the slug is not one of this family's (another
 * duration such as `btc-updown-5m-…`, another coin, or a start off the 900 s grid).
 */
export function startOfSlug(slug: string): number | null {
  const m = SLUG.exec(slug)
  if (!m) return null
  const s = Number(m[1])
  return s % WINDOW_S === 0 ? s : null
}

/**
 * The windows the adapter follows at `atMs`: the one just ended (awaiting its result), the current
 * one and the next (venue facts §3.1.2), oldest first.
 */
export function slugsAround(atMs: number): { previous: string; current: string; next: string } {
  const s = windowStartS(atMs)
  return { previous: slugForStart(s - WINDOW_S), current: slugForStart(s), next: slugForStart(s + WINDOW_S) }
}
