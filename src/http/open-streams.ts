// The open streams of this replica by client address and by API key: the per-address cap
// (STREAM_MAX_PER_ADDRESS) and the end of every stream opened with a key once it is revoked
// (decisions §7: a revoked key stops working everywhere within 5 s, streams included).
//
// The cap is per replica on purpose. Opening a stream costs a token of the address's bucket, which
// is shared by every replica, so no address opens more than the burst plus 1/s deployment-wide; the
// cap only bounds what an address accumulates on one replica over time, and it protects exactly the
// memory and sockets of the replica that holds the streams. A shared count would need Redis to
// admit a stream and would leak counts whenever a replica died with streams open.
import type { ServerResponse } from 'node:http'
import type { StoredEvent } from '../domain/events.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'

export type OpenStreams = {
  /**
   * Registers a stream unless its address already holds the maximum; false when refused. An
   * admitted stream is released with the same address and key when it closes (stream-handover.ts).
   */
  admit(address: string | number, keyId: string, res: ServerResponse): boolean
  release(address: string | number, keyId: string, res: ServerResponse): void
  /** Ends every open stream of this key; returns how many. */
  endForKey(keyId: string): number
  hasKey(keyId: string): boolean
  countFor(address: string | number): number
}

export function createOpenStreams(maxPerAddress: number): OpenStreams {
  const byAddress = new Map<string | number, number>()
  const byKey = new Map<string, Set<ServerResponse>>()
  return {
    admit(address, keyId, res) {
      const n = byAddress.get(address) ?? 0
      if (n >= maxPerAddress) return false
      byAddress.set(address, n + 1)
      let set = byKey.get(keyId)
      if (!set) {
        set = new Set()
        byKey.set(keyId, set)
      }
      set.add(res)
      return true
    },
    release(address, keyId, res) {
      const set = byKey.get(keyId)
      // released twice, or never admitted: nothing to count down
      if (!set?.delete(res)) return
      if (set.size === 0) byKey.delete(keyId)
      const left = (byAddress.get(address) ?? 1) - 1
      if (left <= 0) byAddress.delete(address)
      else byAddress.set(address, left)
    },
    endForKey(keyId) {
      const set = byKey.get(keyId)
      if (!set) return 0
      const n = set.size
      // A clean end: the client reconnects, and its reconnect meets the 401 of the revoked key.
      for (const res of set) if (!res.writableEnded) res.end()
      return n
    },
    hasKey: (keyId) => byKey.has(keyId),
    countFor: (address) => byAddress.get(address) ?? 0,
  }
}

/**
 * A listener for the event log: on `key.changed` for a key that has open streams here, asks the
 * store whether it is revoked and, if so, ends those streams. The log is read every 250 ms at the
 * latest, so this happens well within decisions §7's 5 s; a failed store read is retried each second.
 */
export function endStreamsOfRevokedKeys(opts: {
  streams: OpenStreams
  store: Pick<Store, 'listKeys'>
  logger: Pick<Logger, 'info' | 'warn'>
}): (events: readonly StoredEvent[]) => void {
  const { streams, store, logger } = opts
  const check = async (ids: readonly string[], attempt = 0): Promise<void> => {
    const watched = ids.filter((id) => streams.hasKey(id))
    if (watched.length === 0) return
    try {
      const keys = await store.listKeys()
      for (const id of watched) {
        const key = keys.find((k) => k.id === id)
        if (key && key.revokedAt === null) continue
        const ended = streams.endForKey(id)
        if (ended > 0) logger.info({ keyId: id, streams: ended }, 'streams of a revoked key ended')
      }
    } catch (err) {
      if (attempt === 0) logger.warn({ err }, 'checking a changed key failed; retrying every second')
      setTimeout(() => void check(watched, attempt + 1), 1000).unref()
    }
  }
  return (events) => {
    const ids: string[] = []
    for (const e of events) {
      if (e.type !== 'key.changed') continue
      try {
        const id = (JSON.parse(e.data) as { id?: unknown }).id
        if (typeof id === 'string') ids.push(id)
      } catch {
        // a malformed event names no key
      }
    }
    if (ids.length > 0) void check(ids)
  }
}
