// Reproducible standard normal draws for tests that need noise of their own (Park–Miller and
// Box–Muller): the test owns its draws, so a figure it asserts on is the same on every run.

export function normals(seed: number): () => number {
  let s = seed
  const uniform = () => {
    s = (s * 48_271) % 2_147_483_647
    return s / 2_147_483_647
  }
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform())
}
