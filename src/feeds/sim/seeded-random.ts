// Counter-based random numbers for the simulator: every draw is a pure function of
// (seed, stream, index, sub), so any instant can be computed in any order, nothing depends on what
// was drawn before, and a restart with the same seed reproduces every price, quote and result.

export type SeededRandom = {
  /** uniform on [0, 1) with 53 random bits */
  uniform(stream: number, index: number, sub?: number): number
  /** standard normal (Box–Muller on two independent uniforms) */
  normal(stream: number, index: number, sub?: number): number
  /**
   * A fast sequential generator of uniforms on [0, 1) keyed by (seed, stream, index): for a block of
   * draws always consumed in the same order (a minute's seconds, an epoch's minutes), so the block
   * is still a pure function of its key while each draw costs a few integer operations.
   */
  sequence(stream: number, index: number): () => number
}

// sfc32 (Chris Doty-Humphrey's small fast counter generator), 32-bit state words
function sfc32(a0: number, b0: number, c0: number, d0: number): () => number {
  let a = a0 | 0
  let b = b0 | 0
  let c = c0 | 0
  let d = d0 | 0
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return (t >>> 0) / TWO_32
  }
  for (let i = 0; i < 12; i++) next()
  return next
}

const TWO_32 = 4_294_967_296
const TWO_53 = 9_007_199_254_740_992

// one round of MurmurHash3 (x86, 32-bit) absorbing the 32-bit word `k`
function absorb(h: number, k: number): number {
  let x = Math.imul(k, 0xcc9e2d51)
  x = (x << 15) | (x >>> 17)
  x = Math.imul(x, 0x1b873593)
  let y = h ^ x
  y = (y << 13) | (y >>> 19)
  return (Math.imul(y, 5) + 0xe6546b64) | 0
}

// MurmurHash3's finaliser: full avalanche of the accumulated state
function fmix32(h: number): number {
  let x = h ^ (h >>> 16)
  x = Math.imul(x, 0x85ebca6b)
  x ^= x >>> 13
  x = Math.imul(x, 0xc2b2ae35)
  x ^= x >>> 16
  return x >>> 0
}

/** Low and high 32-bit words of a safe integer (two's complement for negatives). */
function words(n: number): [number, number] {
  return [n >>> 0, Math.floor(n / TWO_32) | 0]
}

/** A 32-bit hash of a string (UTF-16 code units), for keying streams by ticker. */
export function hashString(s: string): number {
  let h = 0x2f0b5ad1
  for (let i = 0; i < s.length; i++) h = absorb(h, s.charCodeAt(i))
  return fmix32(h ^ s.length)
}

export function createSeededRandom(seed: number): SeededRandom {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`)
  const [seedLo, seedHi] = words(seed)

  // one 32-bit output per (salt, counter); different salts give independent words for one counter
  const word = (salt: number, stream: number, index: number, sub: number): number => {
    const [lo, hi] = words(index)
    let h = salt
    h = absorb(h, seedLo)
    h = absorb(h, seedHi)
    h = absorb(h, stream)
    h = absorb(h, lo)
    h = absorb(h, hi)
    h = absorb(h, sub)
    return fmix32(h ^ 24)
  }

  const unit = (saltA: number, saltB: number, stream: number, index: number, sub: number): number => {
    const a = word(saltA, stream, index, sub) >>> 5 // 27 bits
    const b = word(saltB, stream, index, sub) >>> 6 // 26 bits
    return (a * 67_108_864 + b) / TWO_53
  }

  return {
    uniform: (stream, index, sub = 0) => unit(0x1b56c4e9, 0x7f4a7c15, stream, index, sub),
    normal: (stream, index, sub = 0) => {
      // 1 − u lies in (0, 1], so the logarithm is finite
      const u1 = 1 - unit(0x3c6ef372, 0x2545f491, stream, index, sub)
      const u2 = unit(0x6a09e667, 0x510e527f, stream, index, sub)
      return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
    },
    sequence: (stream, index) =>
      sfc32(
        word(0x243f6a88, stream, index, 0),
        word(0x85a308d3, stream, index, 0),
        word(0x13198a2e, stream, index, 0),
        word(0x03707344, stream, index, 0),
      ),
  }
}
