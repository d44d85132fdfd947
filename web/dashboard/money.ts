// Dollar amounts as every panel writes them: two decimals and thousands separators ("97,123.45"), so a
// strike reads the same in the live panel, the settled list and the side-by-side view.

export function dollars(n: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
}

/** A contest's strike; a venue that has not published its price to beat yet is said to have not. */
export function strikeText(strikeDollars: number | null): string {
  return strikeDollars === null ? 'not yet published' : `$${dollars(strikeDollars)}`
}
