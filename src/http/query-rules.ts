// Query parameter rules that JSON Schema cannot state (decisions §4): a repeated parameter is an
// error, an integer must be written in decimal digits (Ajv's coercion would take `1e1`, ` 5`,
// `0x10` or `+5`), and a value with a malformed percent-escape (`%ZZ`, a cut UTF-8 sequence) is
// refused as the same escape in the path is, instead of being read leniently. Also turns validation
// failures into the `invalid_params` of the problem body, listing every bad parameter at once.
import type { FastifyRequest } from 'fastify'
import type { InvalidParam } from './problems.ts'
import { ProblemError } from './problems.ts'

type PropertySchema = {
  type?: string
  format?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
}

type ObjectSchema = { properties?: Record<string, PropertySchema> }

type ValidationIssue = {
  instancePath?: string
  keyword?: string
  params?: Record<string, unknown>
}

const DECIMAL_DIGITS = /^[0-9]+$/

export const MALFORMED_ESCAPE_REASON = 'has a malformed percent-escape (write % as %25)'

/**
 * preValidation hook: runs before Ajv coerces and defaults, on the query exactly as parsed. When a
 * parameter breaks one of these rules, the others are validated against the schema here as well, so
 * `invalid_params` names every bad parameter, not only the first kind found.
 */
export async function guardQueryShape(request: FastifyRequest): Promise<void> {
  const schema = request.routeOptions.schema?.querystring as ObjectSchema | undefined
  const properties = schema?.properties
  if (!properties) return
  const query = request.query as Record<string, unknown>
  const malformed = malformedParams(request.url)
  const invalid: InvalidParam[] = []
  for (const [name, prop] of Object.entries(properties)) {
    const value = query[name]
    if (malformed.has(name)) invalid.push({ name, reason: MALFORMED_ESCAPE_REASON })
    else if (Array.isArray(value)) invalid.push({ name, reason: 'must be given once, not repeated' })
    else if (prop.type === 'integer' && typeof value === 'string' && !DECIMAL_DIGITS.test(value)) {
      invalid.push({ name, reason: reasonFor(prop) })
    }
  }
  if (invalid.length === 0) return
  // The rest of the query against the route's own compiled schema: those failures are listed too.
  const rest: Record<string, unknown> = { ...query }
  for (const p of invalid) delete rest[p.name]
  const validate = request.getValidationFunction('querystring')
  if (validate && !validate(rest) && validate.errors) {
    for (const p of invalidParamsFrom(validate.errors, schema)) {
      if (!invalid.some((q) => q.name === p.name)) invalid.push(p)
    }
  }
  throw new ProblemError('invalid-parameter', { invalidParams: withBoundsOrder(invalid, query, schema) })
}

/** `since` after `before`: the one rule between two parameters. */
export const SINCE_AFTER_BEFORE: InvalidParam = { name: 'since', reason: 'must not be after before' }

/**
 * The faults of other parameters, and `since` after `before` when both are good on their own: a
 * request with several faults hears of all of them at once, not of this one only once the others
 * are mended.
 */
export function withBoundsOrder(
  invalid: InvalidParam[],
  query: Record<string, unknown>,
  schema: unknown,
): InvalidParam[] {
  const properties = (schema as ObjectSchema | undefined)?.properties
  if (!properties?.since || !properties.before) return invalid
  if (invalid.some((p) => p.name === 'since' || p.name === 'before')) return invalid
  const { since, before } = query
  if (typeof since !== 'string' || typeof before !== 'string') return invalid
  try {
    const [a, b] = [parseInstant('since', since), parseInstant('before', before)]
    return a && b && isAfter(a, b) ? [...invalid, SINCE_AFTER_BEFORE] : invalid
  } catch {
    // a bound the schema passed but no date (a leap second): the handler names it
    return invalid
  }
}

/** Names of the query parameters whose raw value has a malformed percent-escape. */
function malformedParams(url: string): Set<string> {
  const out = new Set<string>()
  const q = url.indexOf('?')
  if (q < 0 || !url.includes('%', q)) return out
  for (const pair of url.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=')
    const rawName = eq < 0 ? pair : pair.slice(0, eq)
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1)
    const name = decodeOrNull(rawName)
    if (name !== null && decodeOrNull(rawValue) === null) out.add(name)
  }
  return out
}

function decodeOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return null
  }
}

/** The invalid_params of a Fastify validation error on the query string (or headers). */
export function invalidParamsFrom(issues: readonly ValidationIssue[], schema: unknown): InvalidParam[] {
  const properties = (schema as ObjectSchema | undefined)?.properties ?? {}
  const out: InvalidParam[] = []
  for (const issue of issues) {
    const missing = issue.keyword === 'required' ? issue.params?.missingProperty : undefined
    const name =
      typeof missing === 'string' ? missing : decodePointer(issue.instancePath ?? '').split('/')[0] || 'query'
    if (out.some((p) => p.name === name)) continue
    const prop = properties[name]
    out.push({
      name,
      reason: typeof missing === 'string' ? 'is required' : prop ? reasonFor(prop) : 'is invalid',
    })
  }
  return out
}

/** One sentence per parameter, built from its schema, so the reason always states the rule in force. */
export function reasonFor(prop: PropertySchema): string {
  if (prop.type === 'integer') {
    return `must be a whole number from ${prop.minimum ?? 0} to ${prop.maximum ?? 'any'}, written in decimal digits`
  }
  if (prop.format === 'date-time') {
    return 'must be an RFC 3339 date-time with an offset, such as 2026-11-22T14:15:00Z (write + as %2B)'
  }
  if (prop.minLength !== undefined || prop.maxLength !== undefined) {
    return `must be ${prop.minLength ?? 0} to ${prop.maxLength ?? 'any number of'} characters long`
  }
  return 'is invalid'
}

/**
 * A date-time bound as given, to the nanosecond RFC 3339 allows: the store keeps milliseconds, so a
 * bound is rounded only where it is applied (`sinceMs`, `beforeMs`), in the direction that keeps
 * both bounds inclusive; comparing two bounds uses every digit.
 */
export type InstantBound = { readonly floorMs: number; readonly nanosPastMs: number }

const FRACTION = /\.([0-9]+)/

/**
 * The bound of a date-time that passed the schema. Leap seconds (23:59:60) are refused: the schema's
 * seconds are 00–59 (docs/api-contract.md), and the POSIX time the store counts in has no such second.
 */
export function parseInstant(name: string, value: string | undefined): InstantBound | undefined {
  if (value === undefined) return undefined
  const digits = FRACTION.exec(value)?.[1] ?? ''
  const floorMs = Date.parse(value.toUpperCase().replace(FRACTION, `.${digits.slice(0, 3).padEnd(3, '0')}`))
  if (Number.isNaN(floorMs)) {
    throw new ProblemError('invalid-parameter', {
      invalidParams: [{ name, reason: reasonFor({ format: 'date-time' }) }],
    })
  }
  return { floorMs, nanosPastMs: Number(digits.slice(3, 9).padEnd(6, '0')) }
}

/** The first whole millisecond at or after the bound: `expires_at >= since` in the store's unit. */
export function sinceMs(bound: InstantBound): number {
  return bound.nanosPastMs > 0 ? bound.floorMs + 1 : bound.floorMs
}

/** The last whole millisecond at or before the bound: `expires_at <= before` in the store's unit. */
export function beforeMs(bound: InstantBound): number {
  return bound.floorMs
}

export function isAfter(a: InstantBound, b: InstantBound): boolean {
  return a.floorMs > b.floorMs || (a.floorMs === b.floorMs && a.nanosPastMs > b.nanosPastMs)
}

function decodePointer(pointer: string): string {
  return pointer.replace(/^\//, '').replace(/~1/g, '/').replace(/~0/g, '~')
}
