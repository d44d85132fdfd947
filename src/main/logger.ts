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

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination ?? process.stdout)
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
