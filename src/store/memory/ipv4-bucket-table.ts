// The IPv4 buckets of the in-process limiter: an open-addressing hash table (linear probing) on typed
// arrays, from the address as an int32 to its bucket's TAT. Nothing in it is a heap object of its
// own, so a take allocates nothing, and an address flood that fills the table, has it swept and
// fills it again never reallocates it. A Map in this place rebuilt its backing store at every
// doubling on the way back to 100,000 entries and left megabytes of garbage behind each time, which
// cost the service about 4 µs a request under `npm run bench`'s 200,000 addresses (BENCHMARKS.md).

export type Ipv4BucketTable = {
  /** The TAT kept for this address, or undefined. The caller keeps it to `maxEntries` entries. */
  get(key: number): number | undefined
  set(key: number, tat: number): void
  size(): number
  /** Removes every entry whose TAT `drop` says; returns how many went. */
  sweep(drop: (tat: number) => boolean): number
  /** Removes `count` entries (or all), taken from where the previous eviction stopped. */
  evict(count: number): void
  clear(): void
}

/** Golden-ratio multiplier (Knuth): spreads neighbouring addresses over the table. */
const SPREAD = 0x9e3779b1

export function createIpv4BucketTable(maxEntries: number): Ipv4BucketTable {
  // At most half full, so a probe sequence stays short.
  let bits = 4
  while (1 << bits < maxEntries * 2 && bits < 30) bits++
  const capacity = 1 << bits
  const mask = capacity - 1
  const shift = 32 - bits
  const keys = new Int32Array(capacity)
  const tats = new Float64Array(capacity)
  const used = new Uint8Array(capacity)
  let size = 0
  let cursor = 0

  const home = (key: number): number => Math.imul(key, SPREAD) >>> shift

  /** The slot holding `key`, or the complement (~slot) of the empty slot where it would go. */
  function find(key: number): number {
    let i = home(key)
    while (used[i] === 1) {
      if (keys[i] === key) return i
      i = (i + 1) & mask
    }
    return ~i
  }

  /** Backward-shift deletion: later entries of the probe run move up, so no tombstone is needed. */
  function removeAt(slot: number): void {
    let hole = slot
    used[hole] = 0
    size--
    let j = hole
    for (;;) {
      j = (j + 1) & mask
      if (used[j] === 0) return
      const h = home(keys[j]!)
      // The entry at j may fill the hole only if its home slot is not (cyclically) in (hole, j].
      const homeAfterHole = hole <= j ? h > hole && h <= j : h > hole || h <= j
      if (homeAfterHole) continue
      keys[hole] = keys[j]!
      tats[hole] = tats[j]!
      used[hole] = 1
      used[j] = 0
      hole = j
    }
  }

  return {
    get(key) {
      const i = find(key)
      return i >= 0 ? tats[i] : undefined
    },
    set(key, tat) {
      const i = find(key)
      if (i >= 0) {
        tats[i] = tat
        return
      }
      // The store keeps it at most half full; a full table would leave `find` no empty slot to stop at.
      if (size >= capacity - 1) throw new Error('IPv4 bucket table full')
      const slot = ~i
      keys[slot] = key
      tats[slot] = tat
      used[slot] = 1
      size++
    },
    size: () => size,
    sweep(drop) {
      let removed = 0
      // After a removal the slot may hold an entry shifted into it: look at the same slot again.
      for (let i = 0; i < capacity; ) {
        if (used[i] === 1 && drop(tats[i]!)) {
          removeAt(i)
          removed++
        } else i++
      }
      return removed
    },
    evict(count) {
      let left = Math.min(count, size)
      while (left > 0) {
        if (used[cursor] === 1) {
          removeAt(cursor)
          left--
        } else cursor = (cursor + 1) & mask
      }
    },
    clear() {
      used.fill(0)
      size = 0
      cursor = 0
    },
  }
}
