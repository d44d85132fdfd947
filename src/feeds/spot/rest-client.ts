// One GET of an exchange's public REST API as JSON, bounded by a timeout and cancellable on close.
import { SpotParseError } from './spot-fields.ts'

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

export type GetJsonOptions = {
  timeoutMs: number
  signal: AbortSignal
  /** told how the request ended: its HTTP status, `timeout` or `error`; not told of one cancelled by `signal` */
  onStatus?: (status: string) => void
}

export async function getJson(url: string, opts: GetJsonOptions): Promise<unknown> {
  let res: Response
  try {
    res = await fetch(url, {
      headers: { 'User-Agent': SPOT_USER_AGENT, Accept: 'application/json' },
      signal: AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]),
    })
  } catch (err) {
    if (!opts.signal.aborted)
      opts.onStatus?.(err instanceof Error && err.name === 'TimeoutError' ? 'timeout' : 'error')
    throw err
  }
  opts.onStatus?.(String(res.status))
  if (!res.ok) {
    // drain the body so the connection can be reused
    await res.arrayBuffer().catch(() => undefined)
    throw new SpotHttpError(url, res.status)
  }
  const text = await res.text()
  try {
    return JSON.parse(text)
  } catch {
    // an answer that is not JSON is as unusable as a malformed one: named like a field, so it is counted
    throw new SpotParseError('json', 'not JSON')
  }
}
