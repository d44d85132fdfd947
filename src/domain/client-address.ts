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
