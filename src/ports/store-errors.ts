// The one error a store throws when it cannot answer right now (connection lost or refused, the
// server shutting down, a statement timed out): the api answers it 503 `unavailable` with
// Retry-After wherever it surfaces, and the original error is kept as `cause` for the log.
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}

export function isStoreUnavailable(err: unknown): err is StoreUnavailableError {
  return err instanceof StoreUnavailableError
}
