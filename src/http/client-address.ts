// The client address the rate limiter counts (decisions §5): the socket's peer, or, when that peer
// is a trusted proxy (TRUST_PROXY), the right-most X-Forwarded-For hop that is not itself trusted
// (all trusted: the left-most). The same rules as Fastify's `request.ip` (@fastify/proxy-addr,
// whose header parsing this follows exactly), at a fraction of its cost: IPv4 rules are compared as
// integers, IPv6 ones through node:net's BlockList, and the header is read from the right only as
// far as needed. Two departures, because a hop's text becomes a rate-limit bucket: a hop written
// with a port (`203.0.113.7:4711`, `[2001:db8::1]:443`, as some proxies append it) counts as its
// address, and a hop that is no address at all (`unknown`, junk) ends the chain — the client is
// the trusted hop that reported it, so no made-up text ever gets a bucket of its own. Both the
// framework path and the fast path count by this one function.
import { BlockList, isIP } from 'node:net'
import { bucketKeyFor, ipv4Number } from '../domain/client-address.ts'

export type ClientAddressOf = (socketAddress: string | undefined, forwardedFor: string | undefined) => string

const MAPPED_PREFIX = '::ffff:'

export function createClientAddress(trustProxy: readonly string[]): ClientAddressOf {
  if (trustProxy.length === 0) return (socketAddress) => socketAddress ?? ''
  const trusted = compileTrust(trustProxy)
  return (socketAddress, forwardedFor) => {
    let address = socketAddress ?? ''
    if (forwardedFor === undefined || !trusted(address)) return address
    // @fastify/forwarded's parse, right to left: tokens between commas, outer spaces and tabs
    // trimmed, empty tokens skipped.
    const header = forwardedFor
    let end = header.length
    let start = end
    for (let i = end - 1; i >= -1; --i) {
      const c = i < 0 ? 44 : header.charCodeAt(i)
      if (c === 32 || c === 9) {
        if (start === end) start = end = i
      } else if (c === 44) {
        if (start !== end) {
          const hop = hopAddress(header.slice(start, end))
          if (hop === null) return address
          address = hop
          if (!trusted(address)) return address
        }
        start = end = i
      } else start = i
    }
    return address
  }
}

/**
 * The address a forwarded hop names: itself when it is an IP address, without its port when written
 * `a.b.c.d:port` or `[v6]:port` (or `[v6]`), else null.
 */
export function hopAddress(hop: string): string | null {
  if (ipv4Number(hop) !== null || isIP(hop) !== 0) return hop
  if (hop.startsWith('[')) {
    const close = hop.indexOf(']')
    const inside = close === -1 ? '' : hop.slice(1, close)
    const rest = close === -1 ? '' : hop.slice(close + 1)
    return isIP(inside) === 6 && (rest === '' || isPort(rest.slice(1), rest[0])) ? inside : null
  }
  const colon = hop.indexOf(':')
  if (colon === -1 || hop.indexOf(':', colon + 1) !== -1) return null
  const ip = hop.slice(0, colon)
  return isIP(ip) === 4 && isPort(hop.slice(colon + 1), ':') ? ip : null
}

const isPort = (digits: string, separator: string | undefined): boolean =>
  separator === ':' && /^\d{1,5}$/.test(digits) && Number(digits) <= 65535

/** proxy-addr's trust test: an address that is not an IP is never trusted; mapped IPv6 counts as IPv4. */
function compileTrust(entries: readonly string[]): (address: string) => boolean {
  const v4: { base: number; mask: number }[] = []
  const v6 = new BlockList()
  let anyV6 = false
  for (const entry of entries) {
    const slash = entry.lastIndexOf('/')
    let ip = slash === -1 ? entry : entry.slice(0, slash)
    if (ip.toLowerCase().startsWith(MAPPED_PREFIX) && isIP(ip.slice(MAPPED_PREFIX.length)) === 4) {
      ip = ip.slice(MAPPED_PREFIX.length)
    }
    const n = ipv4Number(ip)
    if (n !== null) {
      const prefix = slash === -1 ? 32 : Number(entry.slice(slash + 1))
      const mask = prefix === 0 ? 0 : (-1 << (32 - prefix)) | 0
      v4.push({ base: n & mask, mask })
    } else if (isIP(ip) === 6) {
      anyV6 = true
      if (slash === -1) v6.addAddress(ip, 'ipv6')
      else v6.addSubnet(ip, Number(entry.slice(slash + 1)), 'ipv6')
    }
  }
  const trustV4 = (n: number) => {
    for (const rule of v4) if ((n & rule.mask) === rule.base) return true
    return false
  }
  return (address) => {
    const n = ipv4Number(address)
    if (n !== null) return trustV4(n)
    if (isIP(address) !== 6) return false
    // IPv4-mapped, dotted or hex (::ffff:7f00:1): bucketKeyFor gives the IPv4 address back.
    if (address.includes('ffff') || address.includes('FFFF')) {
      const mapped = ipv4Number(bucketKeyFor(address))
      if (mapped !== null) return trustV4(mapped)
    }
    if (!anyV6) return false
    try {
      return v6.check(address, 'ipv6')
    } catch {
      return false
    }
  }
}
