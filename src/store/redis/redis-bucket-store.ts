// Rate-limit buckets in Redis, shared by every api replica: one EVALSHA per counted request, behind
// a circuit breaker. Every call is bounded by a command timeout (tens of ms); a timeout or an error
// opens the breaker, and while it is open every request is decided by an in-process bucket with no
// Redis call at all, health reports "degraded" and a background probe runs a bucket step (on a key
// of its own) once a second. The first successful probe closes it. One log line when it opens, one when it closes. So the
// worst a Redis gray failure (a paused process, a vanished host: sockets open, no answers) adds to a
// request is the command timeout, once: a brief per-replica limit beats stalls and 5xx answers.
import { createClient } from 'redis'
import { ipv4FromNumber } from '../../domain/client-address.ts'
import type { BucketKey, BucketStore, TakeResult } from '../../ports/bucket-store.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import { createMemoryBucketStore } from '../memory/memory-bucket-store.ts'
import { TOKEN_BUCKET_SCRIPT } from './token-bucket-script.ts'

export type RedisBucketStoreOptions = {
  url: string
  prefix: string
  burst: number
  perSec: number
  clock: Clock
  logger: Pick<Logger, 'warn' | 'info'>
  /** how long one Redis step may take before the breaker opens (default 50 ms) */
  commandTimeoutMs?: number
  /** how often the open breaker probes Redis (default 1000 ms) */
  probeEveryMs?: number
}

export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 50
const DEFAULT_PROBE_EVERY_MS = 1000

class RedisTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`)
    this.name = 'RedisTimeoutError'
  }
}

/** `promise`, or a RedisTimeoutError after `ms`; the late answer, if any, is dropped. */
function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    // A loop that stalled past `ms` (a GC pause, a busy CPU) runs its due timers before the I/O that
    // came in meanwhile, so Redis's answer may already wait in the socket: it gets that one I/O turn
    // (setImmediate runs after it) before the command is called late.
    timer = setTimeout(() => setImmediate(() => reject(new RedisTimeoutError(ms))), ms)
  })
  promise.catch(() => undefined)
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

export async function createRedisBucketStore(opts: RedisBucketStoreOptions): Promise<BucketStore> {
  const { url, prefix, burst, perSec, logger } = opts
  const timeoutMs = opts.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS
  const probeEveryMs = opts.probeEveryMs ?? DEFAULT_PROBE_EVERY_MS
  const intervalMs = 1000 / perSec
  const fallback = createMemoryBucketStore({ burst, perSec, clock: opts.clock })
  const client = createClient({
    url,
    disableOfflineQueue: true,
    // The library's own timeout only clears its queue of commands we have already given up on.
    commandOptions: { timeout: Math.max(1000, timeoutMs) },
    socket: {
      connectTimeout: 1000,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
    },
  })
  let open = false
  let closed = false
  let probeTimer: NodeJS.Timeout | undefined
  let sha: string | null = null
  // Outside `rl:`, where client addresses live, so no address can share the probe's bucket.
  const probeKey = `${prefix}rl-probe`

  function trip(err: unknown): void {
    if (open || closed) return
    open = true
    logger.warn(
      { err: String(err), timeoutMs },
      'Redis circuit open: rate limiting falls back to in-process buckets until Redis answers again',
    )
    scheduleProbe(probeEveryMs)
  }

  function scheduleProbe(ms: number): void {
    if (closed) return
    clearTimeout(probeTimer)
    probeTimer = setTimeout(() => void probe(), ms)
    probeTimer.unref()
  }

  async function probe(): Promise<void> {
    if (!open || closed) return
    try {
      if (!client.isReady) throw new Error('not connected')
      // The probe is a bucket step of its own, not a PING: a Redis that answers PING but refuses
      // the step's write (a read-only replica, maxmemory, MISCONF) is still no place for buckets.
      await bounded(stepInRedis(probeKey), Math.max(timeoutMs, 250))
      open = false
      logger.info({}, 'Redis circuit closed: rate limiting is shared across replicas again')
    } catch {
      scheduleProbe(probeEveryMs)
    }
  }

  client.on('error', trip)
  client.on('ready', () => {
    sha = null
    // A fresh connection is a good moment to check; the probe, not the event, closes the circuit.
    if (open) scheduleProbe(0)
  })
  // Starting with Redis down is allowed: the client keeps reconnecting in the background (its
  // connect() only settles once a connection is made), and requests use the fallback meanwhile.
  const connecting = client.connect().catch(trip)
  await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, 1000).unref())])
  if (!client.isReady) trip('not connected at start')

  async function takeInRedis(key: BucketKey): Promise<TakeResult> {
    // The key as bucketKeyFor writes it, so replicas of every version share one bucket per address.
    const name = typeof key === 'number' ? ipv4FromNumber(key) : key
    return stepInRedis(`${prefix}rl:${name}`)
  }

  async function stepInRedis(redisKey: string): Promise<TakeResult> {
    sha ??= await client.scriptLoad(TOKEN_BUCKET_SCRIPT)
    const args = { keys: [redisKey], arguments: [String(burst), String(intervalMs)] }
    let reply: unknown
    try {
      reply = await client.evalSha(sha, args)
    } catch (err) {
      if (!String(err).includes('NOSCRIPT')) throw err
      sha = await client.scriptLoad(TOKEN_BUCKET_SCRIPT)
      reply = await client.evalSha(sha, args)
    }
    const [allowed, remaining, waitMs] = reply as [number, number, string]
    return {
      allowed: allowed === 1,
      remaining: Math.max(0, remaining),
      retryAfterS: Math.max(1, Math.ceil(Number(waitMs) / 1000)),
    }
  }

  return {
    async take(key) {
      if (open) return fallback.take(key)
      if (!client.isReady) {
        trip('not connected')
        return fallback.take(key)
      }
      try {
        return await bounded(takeInRedis(key), timeoutMs)
      } catch (err) {
        trip(err)
        return fallback.take(key)
      }
    },
    health: () => (open ? 'degraded' : 'ok'),
    async close() {
      closed = true
      clearTimeout(probeTimer)
      client.removeAllListeners('error')
      client.on('error', () => undefined)
      await bounded(client.close(), 1000).catch(() => client.destroy())
      await fallback.close()
    },
  }
}
