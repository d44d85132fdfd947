import type { MinuteClose } from './src/domain/price-history.ts'
import type { BookState } from './src/domain/reading-model.ts'
import { V2_PARAMS } from './src/model/models.ts'
import { settlementMeanProbability } from './src/model/settlement-mean-model.ts'
const MINUTE = 60_000
const OPEN = Date.parse('2026-11-24T15:00:00Z')
function closes(end: number): MinuteClose[] {
  let seed = 11; let px = 90_000; const out: MinuteClose[] = []
  for (let m = end - 1_440 * MINUTE; m <= end; m += MINUTE) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    px *= Math.exp(0.0005 * (seed / 2 ** 31 - 0.5) * 3.46)
    out.push({ at: m, priceDollars: px })
  }
  return out
}
const fresh = (u: number | null, d: number | null): BookState => ({ upAskCents: u, downAskCents: d, ageMs: 0 })
const tenths = (a: number, b: number) => Array.from({ length: Math.round((b - a) * 10) + 1 }, (_, i) => Math.round(a * 10 + i) / 10)
function p(minute: number, ratio: number, book: BookState | null, venue?: 'polymarket') {
  const at = OPEN + minute * MINUTE; const c = closes(at); const spot = c.at(-1)!.priceDollars
  return settlementMeanProbability({ spotDollars: spot, spotObservedAt: at, strikeDollars: spot / ratio, opensAt: OPEN, expiresAt: OPEN + 15 * MINUTE, closes: c, basisSamples: [], midProbability: null, ...(book ? { book } : {}), ...(venue ? { venue } : {}) }, V2_PARAMS)
}
for (const venue of [undefined, 'polymarket'] as const) {
  let worst = 0; let worstAt = ''
  let worstVanish = 0
  for (const minute of [1, 2, 5, 13]) for (const ratio of [0.9995, 1, 1.0003]) {
    const paths = {
      widening: tenths(50.5, 99.9).map((a) => fresh(a, a)),
      vanishing: [...tenths(50.5, 100).map((d) => fresh(99.9, d)), fresh(99.9, null)],
      sliding: [...tenths(50.5, 99.9).map((up) => fresh(up, Math.round((101 - up) * 10) / 10)), ...tenths(0.1, 1.1).reverse().map((d) => fresh(99.9, d)), fresh(100, 0.1), fresh(null, 0.1)],
    }
    for (const [name, path] of Object.entries(paths)) {
      let prev: number | null = null
      path.forEach((b, i) => {
        const q = p(minute, ratio, b, venue).probabilityUp
        if (prev !== null) { const d = Math.abs(q - prev); if (d > worst) { worst = d; worstAt = `${name} m${minute} r${ratio} step ${i} ${JSON.stringify(b)}` } if (i === path.length - 1) worstVanish = Math.max(worstVanish, d) }
        prev = q
      })
    }
  }
  console.log(venue ?? 'kalshi', 'largest step', worst.toFixed(5), worstAt, 'largest at the vanishing step', worstVanish.toExponential(2))
  // what the model does with books
  for (const minute of [2, 8]) {
    const r = 1.0003
    const alone = p(minute, r, null, venue).probabilityUp
    const show = (label: string, b: BookState) => console.log(`  m${minute} ${label}: ${p(minute, r, b, venue).probabilityUp.toFixed(4)} (alone ${alone.toFixed(4)})`)
    show('fresh 60/61 (mid .605, 1c)', fresh(61, 40))
    show('20/80 book (mid .5, 60c)', fresh(80, 80))
    show('30 s stale 60/61', { upAskCents: 61, downAskCents: 40, ageMs: 30_000 })
    show('5 min stale 60/61', { upAskCents: 61, downAskCents: 40, ageMs: 300_000 })
    show('up ask 61 alone', fresh(61, null))
    show('down ask 40 alone', fresh(null, 40))
  }
}
