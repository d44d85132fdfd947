// The kinds of value a setting can take: each parser turns a variable's text into its value or into
// the one-line problems that name the variable (decisions §2), and says in a few words what it
// accepts, for the README's settings tables and .env.example (tools/settings-docs.ts).
import { parseDateTime } from '../domain/instant.ts'
import { VENUES, type VenueName } from '../domain/venues.ts'
import { parseWeeklyWindow, type WeeklyWindow } from '../domain/weekly-window.ts'

export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] }

export type Parser<T> = {
  /** `raw` is trimmed, and empty only as a default; `name` is the variable, for the problems */
  parse(raw: string, name: string): Parsed<T>
  /** what a value looks like, in Markdown: "whole number 0–65535", "`on` or `off`" */
  accepts: string
}

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value })
const refuse = <T>(...problems: string[]): Parsed<T> => ({ ok: false, problems })
const quoted = JSON.stringify
const listOf = (values: readonly string[]): string => values.map((v) => `\`${v}\``).join(', ')
const commaList = (raw: string, lowercase = false): string[] =>
  raw.split(',').map((s) => (lowercase ? s.trim().toLowerCase() : s.trim()))

export function wholeNumber(min: number, max: number): Parser<number> {
  return {
    accepts: `whole number ${min}–${max}`,
    parse: (raw, name) =>
      /^[0-9]+$/.test(raw) && Number(raw) >= min && Number(raw) <= max
        ? ok(Number(raw))
        : refuse(`${name}=${quoted(raw)} is not a whole number from ${min} to ${max}`),
  }
}

/** Decimal digits with an optional fraction: no sign, exponent or hexadecimal. */
export function decimal(min: number, max: number): Parser<number> {
  return {
    accepts: `number ${min}–${max}`,
    parse: (raw, name) =>
      /^[0-9]+(\.[0-9]+)?$/.test(raw) && Number(raw) >= min && Number(raw) <= max
        ? ok(Number(raw))
        : refuse(`${name}=${quoted(raw)} is not a number from ${min} to ${max}`),
  }
}

/** A seed: up to 15 digits, so every value is an exact double. */
export const seed: Parser<number> = {
  accepts: 'whole number',
  parse: (raw, name) =>
    /^[0-9]{1,15}$/.test(raw)
      ? ok(Number(raw))
      : refuse(
          `${name}=${quoted(raw)} ${/^[0-9]+$/.test(raw) ? 'is too large: at most 15 digits' : 'is not a whole number of decimal digits (0 or more)'}`,
        ),
}

export const onOff: Parser<boolean> = {
  accepts: '`on` or `off`',
  parse: (raw, name) => {
    const v = raw.toLowerCase()
    return v === 'on' || v === 'off' ? ok(v === 'on') : refuse(`${name}=${quoted(v)} must be on or off`)
  },
}

/** Any text: a path, a prefix, an identifier. */
export function text(accepts: string): Parser<string> {
  return { accepts, parse: (raw) => ok(raw) }
}

/** One of `values`; `noun` names them in the refusal ("is not a known model"), else "must be one of". */
export function oneOf<const V extends string>(values: readonly V[], noun?: string): Parser<V> {
  return {
    accepts: `one of ${listOf(values)}`,
    parse: (raw, name) => {
      if ((values as readonly string[]).includes(raw)) return ok(raw as V)
      return noun === undefined
        ? refuse(`${name} must be one of ${values.join(', ')}`)
        : refuse(`${name}=${quoted(raw)} is not a known ${noun} (known: ${values.join(', ')})`)
    },
  }
}

/** Text matching one of `patterns`; `form` says which in the refusal and the docs. */
export function matching(patterns: readonly RegExp[], form: string): Parser<string> {
  return {
    accepts: form,
    parse: (raw, name) =>
      patterns.some((p) => p.test(raw)) ? ok(raw) : refuse(`${name} must be ${form.replaceAll('`', '')}`),
  }
}

/** An absolute URL with one of `schemes`, without trailing slashes (paths are appended to it). */
export function absoluteUrl(schemes: readonly string[], wording = schemes.join(' or ')): Parser<string> {
  return {
    accepts: `${schemes.map((s) => s.replace(/:$/, '')).join(' or ')} URL`,
    parse: (raw, name) => {
      const url = raw.replace(/\/+$/, '')
      return hasScheme(url, schemes) ? ok(url) : refuse(`${name} must be an absolute ${wording} URL`)
    },
  }
}

export const httpUrl = absoluteUrl(['http:', 'https:'], 'http(s)')

/** A comma-separated list of distinct items, each matching `item`; `described` words the refusal. */
export function distinctList(item: RegExp, described: string): Parser<string[]> {
  return {
    accepts: 'comma-separated list',
    parse: (raw, name) => {
      const items = commaList(raw)
      return items.every((s) => item.test(s)) && new Set(items).size === items.length
        ? ok(items)
        : refuse(`${name} must be a comma-separated list of distinct ${described}`)
    },
  }
}

/** Distinct names from `values`, in the order given, any case; `noun` names them in the refusal. */
export function distinctNames<const V extends string>(values: readonly V[], noun: string): Parser<V[]> {
  return {
    accepts: `comma-separated list of ${listOf(values)}`,
    parse: (raw, name) => {
      const items = commaList(raw, true)
      return items.every((s) => (values as readonly string[]).includes(s)) &&
        new Set(items).size === items.length
        ? ok(items as V[])
        : refuse(
            `${name}=${quoted(raw)} must be a comma-separated list of distinct ${noun} from ${values.join(', ')}`,
          )
    },
  }
}

/**
 * VENUE (decisions §14): known names, none twice, and the simulator alone (it runs on its own virtual
 * clock, a real venue on the wall clock, so the two cannot share an engine). Which venue each series
 * needs is a rule across VENUE and SERIES, in config.ts.
 */
export const venueList: Parser<VenueName[]> = {
  accepts: `comma-separated list of ${listOf(VENUES)}`,
  parse: (raw, name) => {
    const venues = commaList(raw, true)
    const given = `${name}=${quoted(venues.join(','))}`
    const unknown = venues.filter((v) => !(VENUES as readonly string[]).includes(v))
    if (unknown.length > 0 && venues.length === 1)
      return refuse(`${given} is not a known venue (known: ${VENUES.join(', ')})`)
    if (unknown.length > 0)
      return refuse(
        `${given}: ${unknown.map((v) => quoted(v)).join(', ')} is not a known venue (known: ${VENUES.join(', ')})`,
      )
    if (new Set(venues).size !== venues.length) return refuse(`${given} names a venue twice`)
    if (venues.includes('sim') && venues.length > 1)
      return refuse(
        `${given}: the simulator runs alone (its clock is virtual, a real venue's is the wall clock)`,
      )
    return ok(venues as VenueName[])
  },
}

/** IP addresses and CIDR blocks, empty entries skipped; each bad entry is its own problem. */
export const addressList: Parser<string[]> = {
  accepts: 'comma-separated IPs and CIDRs',
  parse: (raw, name) => {
    const items = commaList(raw).filter(Boolean)
    const bad = items.filter((t) => !isIpOrCidr(t))
    return bad.length === 0
      ? ok(items)
      : refuse(...bad.map((t) => `${name} entry ${quoted(t)} is not an IP address or CIDR`))
  },
}

/**
 * `*`, or browser origins, empty entries skipped. Each is written as a browser sends it (lower-case
 * scheme and host, no default port, no trailing `/`), or a configured `https://A.example/` would
 * never match the `Origin` a browser sends; a path, a query or credentials make no origin.
 */
export const origins: Parser<string[] | '*'> = {
  accepts: '`*` or comma-separated origins',
  parse: (raw, name) => {
    if (raw === '*') return ok('*')
    const items = commaList(raw).filter(Boolean)
    // `,,,` names no origin: as an empty value would, it is refused rather than read as "none"
    if (items.length === 0)
      return refuse(`${name}=${quoted(raw)} names no origin: give * or origins like https://example.com`)
    if (!items.every((o) => hasScheme(o, ['http:', 'https:'])))
      return refuse(`${name} must be * or a comma-separated list of origins like https://example.com`)
    const notOrigins = items.filter((o) => {
      const url = new URL(o)
      return url.pathname !== '/' || url.search !== '' || url.hash !== '' || o.includes('@')
    })
    if (notOrigins.length > 0)
      return refuse(
        ...notOrigins.map(
          (o) => `${name} entry ${quoted(o)} is no origin: scheme and host only, like https://example.com`,
        ),
      )
    return ok([...new Set(items.map((o) => new URL(o).origin))])
  },
}

/** An RFC 3339 instant with its offset (Unix ms): a bare date or a local time would depend on the machine. */
export const instant: Parser<number> = {
  accepts: 'RFC 3339 instant',
  parse: (raw, name) => {
    const ms = parseDateTime(raw)
    return ms === null
      ? refuse(`${name}=${quoted(raw)} is not an RFC 3339 instant (e.g. 2026-11-23T17:00:00Z)`)
      : ok(ms)
  },
}

/** An IPv4 address (each part 0–255), an IPv6 address, or a DNS host name (RFC 1123). */
export const host: Parser<string> = {
  accepts: 'IP address or host name',
  parse: (raw, name) =>
    isHost(raw) ? ok(raw) : refuse(`${name}=${quoted(raw)} is not an IP address or host name`),
}

function hasScheme(s: string, schemes: readonly string[]): boolean {
  try {
    return schemes.includes(new URL(s).protocol)
  } catch {
    return false
  }
}

function isHost(s: string): boolean {
  if (s.includes(':')) return isIpOrCidr(s) && !s.includes('/')
  const labels = s.split('.')
  if (labels.every((l) => /^[0-9]+$/.test(l))) return isIpOrCidr(s) && !s.includes('/')
  return s.length <= 253 && labels.every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l))
}

function isIpOrCidr(s: string): boolean {
  const [addr, bits, extra] = s.split('/')
  if (extra !== undefined || addr === undefined) return false
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(addr)
  const isV4 = v4?.slice(1).every((o) => Number(o) <= 255)
  const isV6 = !isV4 && addr.includes(':') && /^[0-9a-fA-F:.]+$/.test(addr)
  if (!isV4 && !isV6) return false
  if (bits === undefined) return true
  return /^[0-9]{1,3}$/.test(bits) && Number(bits) <= (isV4 ? 32 : 128)
}

/** `off`, or a weekly window in New York time: `tuesday 07:00 5` (weekday, start, minutes). */
export const weeklyWindow: Parser<WeeklyWindow | null> = {
  accepts: '`off`, or `WEEKDAY HH:MM MINUTES` (New York time)',
  parse: (raw, name) => {
    if (raw.toLowerCase() === 'off') return ok(null)
    const window = parseWeeklyWindow(raw)
    return window
      ? ok(window)
      : refuse(
          `${name}=${quoted(raw)} must be off or a weekday, a New York time and minutes, e.g. "tuesday 07:00 5"`,
        )
  },
}
