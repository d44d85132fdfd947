// Whether the account may read the settlement index. A `subscribe` ack on `cfbenchmarks_value` does
// not prove it: the venue acks and then sends nothing to an account without the CF Benchmarks
// entitlement. So the index is asked for once through the venue's CF Benchmarks passthrough
// (`GET /cfbenchmarks/values?id=BRTI`, its last minutes; venue facts §4.4, 50 read tokens), which
// needs that entitlement too.
import type { KalshiClient } from './kalshi-client.ts'

export type IndexEntitlement =
  | { kind: 'entitled' }
  /** the venue refused (401/403): the account lacks the entitlement, the index will not flow */
  | { kind: 'refused'; status: string }
  /** no usable answer (an outage, a timeout, an unknown shape): the prints will tell */
  | { kind: 'unknown'; status: string }

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

export async function probeIndexEntitlement(
  client: KalshiClient,
  id: string,
  signal?: AbortSignal,
): Promise<IndexEntitlement> {
  const reply = await client.get('index_values', '/cfbenchmarks/values', { id }, { signal, maxAttempts: 1 })
  if (!reply.ok)
    return reply.status === '401' || reply.status === '403'
      ? { kind: 'refused', status: reply.status }
      : { kind: 'unknown', status: reply.status }
  // `{"data": {"serverTime", "payload": [{value, time}, …]}}`: the passthrough wraps CF's answer
  const data = isRecord(reply.body) && isRecord(reply.body.data) ? reply.body.data : reply.body
  const payload = isRecord(data) ? data.payload : undefined
  return Array.isArray(payload) && payload.length > 0
    ? { kind: 'entitled' }
    : { kind: 'unknown', status: 'no values' }
}
