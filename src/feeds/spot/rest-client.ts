// One GET of an exchange's public REST API as JSON, bounded by a timeout and cancellable on close.

/** Sent on every request: Coinbase has been reported to refuse requests without one [R][U]. */
export const SPOT_USER_AGENT = 'contest-signals/1.0 (spot price feed)'

export class SpotHttpError extends Error {
  readonly status: number
  constructor(url: string, status: number) {
    super(`GET ${url} answered HTTP ${status}`)
    this.name = 'SpotHttpError'
    this.status = status
  }
}

export async function getJson(
  url: string,
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<unknown> {
  const res = await fetch(url, {
    headers: { 'User-Agent': SPOT_USER_AGENT, Accept: 'application/json' },
    signal: AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]),
  })
  if (!res.ok) {
    // drain the body so the connection can be reused
    await res.arrayBuffer().catch(() => undefined)
    throw new SpotHttpError(url, res.status)
  }
  return res.json()
}
