// The sandbox's distributions, drawn from a sequence of uniforms (seeded-random.ts: a block keyed
// by seed, stream and counter, so each block can still be made in any order).

/** A standard normal pair from a sequence of uniforms (Box–Muller). */
export function normalPair(next: () => number): [number, number] {
  const r = Math.sqrt(-2 * Math.log(1 - next()))
  const a = 2 * Math.PI * next()
  return [r * Math.cos(a), r * Math.sin(a)]
}

/**
 * A Student-t draw scaled to unit variance (ν > 2). The χ² in the denominator is built from
 * −2·ln(U₁U₂…) (two degrees of freedom per uniform) plus one squared normal for odd ν, so ν = 5
 * costs four uniforms.
 */
export function unitStudentT(next: () => number, nu: number): number {
  const [z, extra] = normalPair(next)
  const pairs = Math.floor(nu / 2)
  let chi2 = nu % 2 === 1 ? extra * extra : 0
  for (let i = 0; i < pairs; i++) chi2 -= 2 * Math.log(1 - next())
  return (z / Math.sqrt(chi2 / nu)) * Math.sqrt((nu - 2) / nu)
}

/** A Laplace draw (double exponential) of scale `b` from one uniform: its sign from the same draw. */
export function laplace(u: number, b: number): number {
  return u < 0.5 ? b * Math.log(2 * u + Number.MIN_VALUE) : -b * Math.log(2 * (1 - u))
}

/**
 * The standard normal CDF, computed here and not borrowed from the model (decisions §3): erfc by
 * the Numerical Recipes Chebyshev fit, relative error below 1.2e-7 everywhere.
 */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2
  const t = 1 / (1 + 0.5 * z)
  const poly =
    -z * z -
    1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t *
                      (0.27886807 +
                        t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
  const erfc = t * Math.exp(poly)
  return x >= 0 ? 1 - erfc / 2 : erfc / 2
}

/**
 * The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9),
 * for the exact referee's control variate.
 */
export function normalQuantile(u: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const q = Math.min(1 - 1e-16, Math.max(1e-16, u))
  const tail = (r: number): number =>
    ((((((c[0] as number) * r + (c[1] as number)) * r + (c[2] as number)) * r + (c[3] as number)) * r +
      (c[4] as number)) *
      r +
      (c[5] as number)) /
    (((((d[0] as number) * r + (d[1] as number)) * r + (d[2] as number)) * r + (d[3] as number)) * r + 1)
  if (q < 0.02425) return tail(Math.sqrt(-2 * Math.log(q)))
  if (q > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - q)))
  const r0 = q - 0.5
  const r = r0 * r0
  return (
    (((((((a[0] as number) * r + (a[1] as number)) * r + (a[2] as number)) * r + (a[3] as number)) * r +
      (a[4] as number)) *
      r +
      (a[5] as number)) *
      r0) /
    ((((((b[0] as number) * r + (b[1] as number)) * r + (b[2] as number)) * r + (b[3] as number)) * r +
      (b[4] as number)) *
      r +
      1)
  )
}
