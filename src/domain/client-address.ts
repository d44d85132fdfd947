// The rate-limit bucket key of a client address (decisions §5): IPv4-mapped IPv6 counts as the IPv4
// address, and an IPv6 address counts by its /64 prefix, because one subscriber usually owns a whole
// /64 and could otherwise rotate through 2^64 addresses to dodge the limit.
import { isIPv4, isIPv6 } from 'node:net'

export function bucketKeyFor(address: string): string {
  // A zone index (fe80::1%eth0) names the local interface, not a different client.
  const bare = address.trim().toLowerCase().replace(/%.*$/, '')
  if (isIPv4(bare)) return bare
  if (!isIPv6(bare)) return bare
  const groups = ipv6Groups(bare)
  if (isIpv4Mapped(groups)) {
    const hi = groups[6]!
    const lo = groups[7]!
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address, `::` expanded and a dotted IPv4 tail converted. */
function ipv6Groups(address: string): number[] {
  let text = address
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  const zeros = Array<number>(8 - left.length - right.length).fill(0)
  return [...left, ...zeros, ...right]
}

function isIpv4Mapped(groups: readonly number[]): boolean {
  return groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff
}

/**
 * A canonical dotted-quad IPv4 address as one int32 (a small integer in V8, so a Map keyed by it
 * allocates nothing per lookup), or null for anything else. Only the canonical form is accepted
 * (no leading zeros, no spaces), so `ipv4FromNumber` gives back the very string `bucketKeyFor` returns.
 */
export function ipv4Number(address: string): number | null {
  const len = address.length
  if (len < 7 || len > 15) return null
  let value = 0
  let part = 0
  let digits = 0
  let dots = 0
  for (let i = 0; i < len; i++) {
    const c = address.charCodeAt(i)
    if (c === 46) {
      if (digits === 0 || dots === 3) return null
      value = (value << 8) | part
      part = 0
      digits = 0
      dots++
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return null // a leading zero
      part = part * 10 + (c - 48)
      if (++digits > 3 || part > 255) return null
    } else return null
  }
  if (dots !== 3 || digits === 0) return null
  return (value << 8) | part
}

/** The dotted quad of an `ipv4Number`. */
export function ipv4FromNumber(n: number): string {
  return `${(n >>> 24) & 0xff}.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`
}

/** The rate-limit key of an address: its `ipv4Number` for IPv4 (mapped IPv6 included), else `bucketKeyFor`. */
export function bucketKeyOf(address: string): string | number {
  const n = ipv4Number(address)
  if (n !== null) return n
  const key = bucketKeyFor(address)
  return ipv4Number(key) ?? key
}
