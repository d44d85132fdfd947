// How the model cards print a figure: fixed decimals, an en dash where there is none, and an
// estimate as its value ± its standard error.
import type { Estimate } from '../src/domain/scores.ts'

export const f = (x: number | null | undefined, d = 4) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d)
export const pm = (e: Estimate | null | undefined, d = 4) => (e ? `${f(e.value, d)} ± ${f(e.se, d)}` : '–')
