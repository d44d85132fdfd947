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

/**
 * The store was written by a newer release (a schema version this program does not know): every
 * command refuses it rather than run old code on new tables.
 */
export class StoreTooNewError extends Error {
  constructor(newest: number, known: number) {
    super(
      `the store's schema is version ${newest}, written by a newer contest-signals; this program knows up to version ${known}: run the newer release, or restore a backup made before the upgrade`,
    )
    this.name = 'StoreTooNewError'
  }
}

/** Refuses a store whose applied migrations include one newer than every migration this program has. */
export function refuseNewerSchema(applied: Iterable<number>, known: readonly { version: number }[]): void {
  const newestKnown = Math.max(0, ...known.map((m) => m.version))
  const newest = Math.max(0, ...applied)
  if (newest > newestKnown) throw new StoreTooNewError(newest, newestKnown)
}

/**
 * The store's data is damaged (a page that does not parse): refused at start, and at run time answered
 * 503 like an unavailable store while health says `checks.store: "corrupt"`.
 */
export class StoreCorruptError extends Error {
  constructor(problem: string, options?: { cause?: unknown }) {
    super(
      `the store's data is damaged (${problem}): restore it from a backup (contest-signals backup makes one) or move the file away`,
      options,
    )
    this.name = 'StoreCorruptError'
  }
}
