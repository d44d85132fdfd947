// Rate-limit buckets in Redis, shared by every api replica: one EVALSHA per counted request.
// When Redis cannot be reached the limiter falls back to an in-process bucket (logged once per
// outage, health reports "degraded") rather than failing requests: a brief per-replica limit is a
// better outcome for integrators than 5xx answers.
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
  /** how long one Redis step may take before the request is decided in process instead */
  commandTimeoutMs?: number
}

export async function createRedisBucketStore(opts: RedisBucketStoreOptions): Promise<BucketStore> {
  const { url, prefix, burst, perSec, logger } = opts
  const intervalMs = 1000 / perSec
  const fallback = createMemoryBucketStore({ burst, perSec, clock: opts.clock })
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: opts.commandTimeoutMs ?? 250 },
    socket: {
      connectTimeout: 1000,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
    },
  })
  let degraded = false
  let sha: string | null = null
  const enterDegraded = (err: unknown) => {
    if (!degraded)
      logger.warn({ err: String(err) }, 'Redis unreachable: rate limiting falls back to in-process buckets')
    degraded = true
  }
  client.on('error', enterDegraded)
  client.on('ready', () => {
    sha = null
    if (degraded) logger.info({}, 'Redis reachable again: rate limiting is shared across replicas')
    degraded = false
  })
  // Starting with Redis down is allowed: the client keeps reconnecting in the background (its
  // connect() only settles once a connection is made), and requests use the fallback meanwhile.
  const connecting = client.connect().catch(enterDegraded)
  await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, 1000).unref())])

  async function takeInRedis(key: BucketKey): Promise<TakeResult> {
    sha ??= await client.scriptLoad(TOKEN_BUCKET_SCRIPT)
    // The key as bucketKeyFor writes it, so replicas of every version share one bucket per address.
    const name = typeof key === 'number' ? ipv4FromNumber(key) : key
    const args = { keys: [`${prefix}rl:${name}`], arguments: [String(burst), String(intervalMs)] }
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
      if (!client.isReady) {
        enterDegraded('not connected')
        return fallback.take(key)
      }
      try {
        return await takeInRedis(key)
      } catch (err) {
        enterDegraded(err)
        return fallback.take(key)
      }
    },
    health: () => (degraded || !client.isReady ? 'degraded' : 'ok'),
    async close() {
      client.removeAllListeners('error')
      client.on('error', () => undefined)
      await client.close().catch(() => undefined)
      await fallback.close()
    },
  }
}
