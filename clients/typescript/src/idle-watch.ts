// A connection's watchdog: a host that vanishes (power, a network partition) sends no FIN, so a read
// would wait forever. The service sends a keep-alive comment every 15 s by default; a connection
// silent for much longer is dead, and is aborted so the stream resumes elsewhere.

export type IdleWatch = {
  /** aborted when the caller's signal aborts, or after `ms` without a reset */
  readonly signal: AbortSignal
  /** rejects with the reason when `signal` aborts: race a read against it (any body, fetched or not) */
  readonly aborted: Promise<never>
  /** something arrived: the silence starts again */
  reset(): void
  /** the connection is over: no more timer, no more listener on the caller's signal */
  stop(): void
}

/** Watches one connection; `ms` 0 never times out. */
export function watchIdle(ms: number, outer?: AbortSignal): IdleWatch {
  const connection = new AbortController()
  const onOuterAbort = () => connection.abort(outer?.reason)
  if (outer?.aborted) onOuterAbort()
  else outer?.addEventListener('abort', onOuterAbort, { once: true })
  let timer: ReturnType<typeof setTimeout> | undefined
  const reset = () => {
    clearTimeout(timer)
    if (ms > 0)
      timer = setTimeout(() => connection.abort(new Error(`nothing received for ${ms / 1000} s`)), ms)
  }
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = () => reject(connection.signal.reason)
    if (connection.signal.aborted) onAbort()
    else connection.signal.addEventListener('abort', onAbort, { once: true })
  })
  // nobody may be racing it when it rejects (the connection already over)
  aborted.catch(() => undefined)
  reset()
  return {
    signal: connection.signal,
    aborted,
    reset,
    stop() {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onOuterAbort)
    },
  }
}
