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
