// The one logger shape every module outside main/ depends on: the subset of pino's Logger that the
// code calls, so units take a plain object in tests and pino in production.
type LogFn = (obj: unknown, msg?: string) => void

export interface Logger {
  info: LogFn
  warn: LogFn
  error: LogFn
  debug: LogFn
}
