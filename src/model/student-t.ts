// The fat-tailed distribution of model v2's standardised settlement move: Student's t, scaled to unit
// variance so that the variance the model forecasts is the variance it prices with.
import { normalCdf } from '../domain/model.ts'

/** Above this many degrees of freedom the t is the normal to well below a hundredth of a cent. */
const NORMAL_ABOVE_NU = 1_000

/** ln Γ(x) for x > 0, Lanczos (g = 7, n = 9), relative error below 1e-15. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x)
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ]
  const z = x - 1
  let a = c[0] as number
  const t = z + 7.5
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (z + i)
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a)
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < tiny) d = tiny
  d = 1 / d
  let h = d
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < 1e-15) break
  }
  return h
}

// ln Γ(a + b) − ln Γ(a) − ln Γ(b) of the last (a, b) asked: the model asks with its one ν thousands of
// times a reading (a crowd lag prices sixteen spots), and the three Lanczos sums were a tenth of its time
let memoA = Number.NaN
let memoB = Number.NaN
let memoLogBeta = 0
function logBetaTerm(a: number, b: number): number {
  if (a !== memoA || b !== memoB) {
    memoLogBeta = logGamma(a + b) - logGamma(a) - logGamma(b)
    memoA = a
    memoB = b
  }
  return memoLogBeta
}

/** The regularised incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logBetaTerm(a, b) + a * Math.log(x) + b * Math.log(1 - x))
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(a, b, x)) / a
    : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b
}

/** CDF of Student's t with ν degrees of freedom (ν > 0) at t. */
export function studentTCdf(t: number, nu: number): number {
  if (Number.isNaN(t) || !(nu > 0)) return Number.NaN
  if (nu >= NORMAL_ABOVE_NU) return normalCdf(t)
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0
  const tail = 0.5 * incompleteBeta(nu / (nu + t * t), nu / 2, 0.5)
  return t > 0 ? 1 - tail : tail
}

/** CDF at z of the t with ν > 2 degrees of freedom rescaled to unit variance. */
export function unitStudentTCdf(z: number, nu: number): number {
  if (nu >= NORMAL_ABOVE_NU) return normalCdf(z)
  return studentTCdf(z * Math.sqrt(nu / (nu - 2)), nu)
}
