// The request headers the fast path reads, taken straight from `rawHeaders`. Node builds
// `req.headers` lazily, on first access, by lower-casing and merging every header line; the fast
// path needs seven of them, so reading those from the raw list saves that work on every request.
// Duplicates follow Node's own rules for these names, so each value is exactly what `req.headers`
// would hold: Authorization keeps the first line, the others join their lines with ", ". Host and
// Authorization lines are counted as well, for the request rules (request-rules.ts).
export type HotHeaders = {
  authorization: string | undefined
  forwardedFor: string | undefined
  acceptEncoding: string | undefined
  ifNoneMatch: string | undefined
  origin: string | undefined
  requestId: string | undefined
  lastEventId: string | undefined
  hostLines: number
  authorizationLines: number
}

const join = (current: string | undefined, value: string) =>
  current === undefined ? value : `${current}, ${value}`

export function readHotHeaders(raw: readonly string[]): HotHeaders {
  const h: HotHeaders = {
    authorization: undefined,
    forwardedFor: undefined,
    acceptEncoding: undefined,
    ifNoneMatch: undefined,
    origin: undefined,
    requestId: undefined,
    lastEventId: undefined,
    hostLines: 0,
    authorizationLines: 0,
  }
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!
    const value = raw[i + 1]!
    // Only a name of a wanted length is lower-cased and compared.
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === 'host') h.hostLines++
        break
      case 6:
        if (name.toLowerCase() === 'origin') h.origin = join(h.origin, value)
        break
      case 12:
        if (name.toLowerCase() === 'x-request-id') h.requestId = join(h.requestId, value)
        break
      case 13: {
        const lower = name.toLowerCase()
        if (lower === 'authorization') {
          h.authorization ??= value
          h.authorizationLines++
        } else if (lower === 'if-none-match') h.ifNoneMatch = join(h.ifNoneMatch, value)
        else if (lower === 'last-event-id') h.lastEventId = join(h.lastEventId, value)
        break
      }
      case 15: {
        const lower = name.toLowerCase()
        if (lower === 'x-forwarded-for') h.forwardedFor = join(h.forwardedFor, value)
        else if (lower === 'accept-encoding') h.acceptEncoding = join(h.acceptEncoding, value)
        break
      }
    }
  }
  return h
}
