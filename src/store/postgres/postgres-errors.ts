// Which PostgreSQL failures mean "the store cannot answer right now" (decisions §4: 503 with
// Retry-After), and which of those are safe to try once more on a fresh connection. Everything
// else (a constraint, a bug) passes through unchanged and stays a 500.
import { StoreUnavailableError } from '../../ports/store-errors.ts'

/** SQLSTATEs of a connection that is gone: the statement never ran to completion, a retry is safe. */
const LOST_STATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P05', // idle_session_timeout
  '25P03', // idle_in_transaction_session_timeout
])

/** SQLSTATEs of a server that will not answer now; retrying at once would only add load. */
const BUSY_STATES = new Set([
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '57014', // query_canceled: statement_timeout
  '53300', // too_many_connections
  '53000', // insufficient_resources
  '53100', // disk_full
  '53200', // out_of_memory
])

const LOST_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED'])
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/** pg's own messages for a connection that died or never came. */
const LOST_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
]
const UNREACHABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Query read timeout',
  'Cannot use a pool after calling end',
]

function fields(err: unknown): { code: string; message: string } {
  const e = err as { code?: unknown; message?: unknown } | null
  return {
    code: typeof e?.code === 'string' ? e.code : '',
    message: typeof e?.message === 'string' ? e.message : '',
  }
}

/** The connection was lost under the statement: a read may be retried once on a fresh connection. */
export function isConnectionLost(err: unknown): boolean {
  const { code, message } = fields(err)
  if (LOST_STATES.has(code) || code.startsWith('08') || LOST_SOCKET_CODES.has(code)) return true
  return (
    LOST_MESSAGES.some((m) => message.includes(m)) && !UNREACHABLE_MESSAGES.some((m) => message.includes(m))
  )
}

/** Any failure that means the store cannot answer now (lost, refused, shutting down, timed out). */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError || isConnectionLost(err)) return true
  const { code, message } = fields(err)
  return (
    BUSY_STATES.has(code) ||
    UNREACHABLE_CODES.has(code) ||
    UNREACHABLE_MESSAGES.some((m) => message.includes(m))
  )
}

/** The error a store call throws: StoreUnavailableError (with the cause) when it is one of those. */
export function translate(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isUnavailable(err)) return err
  const { code, message } = fields(err)
  return new StoreUnavailableError(`PostgreSQL is unavailable${code ? ` (${code})` : ''}: ${message}`, {
    cause: err,
  })
}
