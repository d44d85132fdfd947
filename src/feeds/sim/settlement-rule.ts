// Kalshi's written settlement rule for KXBTC15M (venue facts §2.4–2.5): the simple mean of the 60
// one-second index prints stamped [T − 60 s, T), rounded half up to the cent. The strike of a window
// is that mean before its open, its settlement value that mean before its close; a tie is YES.

/** The rounded mean, in integer cents, of the 60 prints before `endMs` (`printCents` per Unix second). */
export function sixtySecondMeanCents(printCents: (second: number) => number, endMs: number): number {
  const end = Math.floor(endMs / 1000)
  let sum = 0
  for (let s = end - 60; s < end; s++) sum += printCents(s)
  // half up on exact integers: floor(sum / 60 + 1/2)
  return Math.floor((sum + 30) / 60)
}

/** YES (up) when the settlement value is at least the strike: a tie is YES. */
export function resolvesYes(settlementCents: number, strikeCents: number): boolean {
  return settlementCents >= strikeCents
}
