// The process logger: structured JSON (pino) that never carries a key or a database password.
import { type Logger, pino } from 'pino'

export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'key',
  'databaseUrl',
  'redisUrl',
  'config.databaseUrl',
  'config.redisUrl',
]

/**
 * Stdout through pino's asynchronous destination: lines are buffered and written in batches, so the
 * access log (one line per request, decisions §4) costs no write system call per request. pino
 * flushes what is buffered when the process exits.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    destination ?? pino.destination({ dest: 1, sync: false }),
  )
}

/** Hides the password of a connection URL before it is shown anywhere. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return url
  }
}
