import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { PROBLEM_NAMES, PROBLEMS } from '../src/http/problems.ts'
import { newSeries, seedLiveContest } from './support/contest-fixtures.ts'
import { TEST_BASE_URL, useTestWorld } from './support/test-world.ts'

type Operation = {
  operationId?: string
  security?: Record<string, unknown>[]
  parameters?: { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[]
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }
  >
}
// biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
type Doc = any

let doc: Doc
const { world, api } = useTestWorld({}, async (_, client) => {
  const res = await client.get('/v1/openapi.json')
  assert.equal(res.status, 200)
  doc = res.json
})

const operations = (): [string, string, Operation][] =>
  Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => [path, method, op] as [string, string, Operation]),
  )
const op = (path: string): Operation => doc.paths[path].get
const param = (path: string, name: string) => op(path).parameters!.find((p) => p.name === name)!
const KEYED = ['/v1/contests/active', '/v1/contests/{ticker}', '/v1/contests', '/v1/stream/contests']

describe('GET /v1/openapi.json', () => {
  test('serves a valid OpenAPI 3.1.0 document', async () => {
    assert.equal(doc.openapi, '3.1.0')
    await SwaggerParser.validate(structuredClone(doc))
  })

  test('serves the document the app builds from its route schemas', () => {
    assert.deepEqual(doc, JSON.parse(JSON.stringify(world.app.swagger())))
  })

  test('names the public base URL as the server and needs no key', async () => {
    assert.deepEqual(doc.servers, [{ url: TEST_BASE_URL }])
    assert.deepEqual(op('/v1/openapi.json').security, [])
  })

  test('documents every endpoint and leaves out problem pages and 405 stubs', () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      '/v1/contests',
      '/v1/contests/active',
      '/v1/contests/{ticker}',
      '/v1/health',
      '/v1/openapi.json',
      '/v1/stream/contests',
    ])
    // every operation is a GET, or the HEAD mirroring it (the stream has none: HEAD there is 405)
    for (const [path, method, operation] of operations()) {
      assert.ok(method === 'get' || method === 'head', `${method} ${path}`)
      if (method === 'head') assert.equal(operation.operationId, `${doc.paths[path].get.operationId}-head`)
    }
    const heads = operations()
      .filter(([, method]) => method === 'head')
      .map(([path]) => path)
      .sort()
    assert.deepEqual(heads, [
      '/v1/contests',
      '/v1/contests/active',
      '/v1/contests/{ticker}',
      '/v1/health',
      '/v1/openapi.json',
    ])
  })

  test("declares each HEAD answer as headers only: the GET's status codes and headers, no content", () => {
    let heads = 0
    for (const [path, method, head] of operations()) {
      if (method !== 'head') continue
      heads++
      const get = op(path)
      assert.deepEqual(Object.keys(head.responses), Object.keys(get.responses), `HEAD ${path} statuses`)
      for (const [status, response] of Object.entries(head.responses)) {
        assert.equal(response.content, undefined, `HEAD ${path} ${status} declares a body`)
        assert.deepEqual(response.headers, get.responses[status]!.headers, `HEAD ${path} ${status} headers`)
      }
      assert.deepEqual(head.parameters, get.parameters, `HEAD ${path} parameters`)
      assert.deepEqual(head.security, get.security, `HEAD ${path} security`)
    }
    assert.equal(heads, 5)
    // and the GETs keep their bodies
    assert.ok(op('/v1/contests/{ticker}').responses['200']!.content!['application/json'])
  })

  test('every HEAD answer is what its operation declares: a declared status, its headers, no body', async () => {
    const series = newSeries()
    const live = await seedLiveContest(world.store, series)
    await world.sync()
    const etag = (await api.get(`/v1/contests/${live.ticker}`, world.key)).headers.get('etag')!
    const cases: [string, string, Record<string, string>, number][] = [
      ['/v1/contests/{ticker}', `/v1/contests/${live.ticker}`, {}, 200],
      ['/v1/contests/{ticker}', `/v1/contests/${live.ticker}`, { 'if-none-match': etag }, 304],
      ['/v1/contests/{ticker}', `/v1/contests/${series}-NOPE`, {}, 404],
      ['/v1/contests/active', `/v1/contests/active?series=${series}`, {}, 200],
      ['/v1/contests', `/v1/contests?series=${series}&limit=0`, {}, 400],
      ['/v1/contests', `/v1/contests?series=${series}`, { authorization: 'Bearer cs_nope' }, 401],
      ['/v1/health', '/v1/health', {}, 200],
      ['/v1/openapi.json', '/v1/openapi.json', {}, 200],
    ]
    for (const [template, url, headers, status] of cases) {
      // api.request checks the answer against the document (test/support/openapi-contract.ts)
      const key = headers.authorization === undefined ? world.key : undefined
      const res = await api.request(url, { method: 'HEAD', key, headers })
      assert.equal(res.status, status, `HEAD ${url}`)
      assert.equal(res.text, '')
      const declared = doc.paths[template].head.responses[String(status)]
      assert.equal(declared.content, undefined)
      for (const name of Object.keys(declared.headers ?? {}))
        assert.ok(res.headers.has(name), `HEAD ${url} ${status}: ${name}`)
    }
  })

  test('describes every operation (Spectral operation-description)', () => {
    for (const [path, method, operation] of operations()) {
      const { description } = operation as Operation & { description?: string }
      assert.ok(description && description.trim().length > 20, `${method} ${path}`)
    }
  })

  test('declares bearer authentication on every keyed endpoint and none on health', () => {
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: doc.components.securitySchemes.bearerAuth.description,
    })
    for (const path of KEYED) assert.deepEqual(op(path).security, [{ bearerAuth: [] }], path)
    assert.deepEqual(op('/v1/health').security, [])
  })

  test('documents every parameter rule', () => {
    for (const path of ['/v1/contests/active', '/v1/contests', '/v1/stream/contests']) {
      const series = param(path, 'series')
      assert.equal(series.required, true)
      assert.equal(series.schema.minLength, 1)
      assert.equal(series.schema.maxLength, 128)
    }
    const limit = param('/v1/contests', 'limit')
    assert.deepEqual(
      {
        type: limit.schema.type,
        min: limit.schema.minimum,
        max: limit.schema.maximum,
        def: limit.schema.default,
      },
      { type: 'integer', min: 1, max: 100, def: 20 },
    )
    for (const name of ['since', 'before']) {
      const bound = param('/v1/contests', name)
      assert.equal(bound.schema.format, 'date-time')
      const pattern = new RegExp(bound.schema.pattern as string)
      assert.ok(pattern.test('2026-11-22T14:15:00Z'))
      assert.ok(pattern.test('2026-11-22T14:15:00.5+01:00'))
      assert.ok(!pattern.test('2026-11-22T14:15:00'), 'an offset is required')
    }
    const ticker = param('/v1/contests/{ticker}', 'ticker')
    assert.equal(ticker.in, 'path')
    assert.equal(ticker.schema.minLength, 1)
    const lastEventId = param('/v1/stream/contests', 'last-event-id')
    assert.equal(lastEventId.in, 'header')
    assert.equal(param('/v1/stream/contests', 'last_event_id').in, 'query')
  })

  test('documents the problem responses of every keyed endpoint as application/problem+json', () => {
    for (const path of KEYED) {
      const { responses } = op(path)
      for (const status of ['400', '401', '429', '500', '503']) {
        assert.ok(responses[status]?.content?.['application/problem+json'], `${path} ${status}`)
      }
      assert.ok(responses['401']!.headers?.['WWW-Authenticate'], `${path} 401 WWW-Authenticate`)
    }
    for (const path of ['/v1/contests/active', '/v1/contests/{ticker}']) {
      assert.ok(op(path).responses['404']?.content?.['application/problem+json'], path)
    }
    assert.deepEqual(op('/v1/contests').responses['400']!.content!['application/problem+json']!.schema, {
      anyOf: [
        { $ref: '#/components/schemas/InvalidParameterProblem' },
        { $ref: '#/components/schemas/Problem' },
      ],
    })
  })

  test('documents Retry-After, X-RateLimit-Limit and X-RateLimit-Remaining on every 429', () => {
    let count = 0
    for (const [path, , operation] of operations()) {
      const tooMany = operation.responses['429']
      if (!tooMany) continue
      count++
      for (const h of ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']) {
        assert.ok(tooMany.headers?.[h], `${path} 429 ${h}`)
      }
    }
    // GET on five endpoints (all but health) and HEAD on four of them (not the stream)
    assert.equal(count, 9, 'every rate-limited operation')
    assert.equal(op('/v1/health').responses['429'], undefined)
  })

  test('documents the stream as text/event-stream with its three events and payloads', () => {
    const stream = op('/v1/stream/contests').responses['200']!.content!['text/event-stream']!.schema as {
      anyOf: { properties: { event: { enum: string[] }; data: { contentSchema: { $ref: string } } } }[]
    }
    const events = stream.anyOf.map((e) => [e.properties.event.enum[0], e.properties.data.contentSchema.$ref])
    assert.deepEqual(events, [
      ['contest.opened', '#/components/schemas/Contest'],
      ['signal.emitted', '#/components/schemas/SignalEmittedPayload'],
      ['contest.settled', '#/components/schemas/Contest'],
    ])
  })

  test('lists the shared schemas once under components', () => {
    for (const name of ['Contest', 'Signal', 'SignalEmittedPayload', 'ContestList', 'Problem', 'Health']) {
      assert.ok(doc.components.schemas[name], name)
    }
    assert.deepEqual(doc.components.schemas.Problem.required, ['type', 'title', 'status', 'detail'])
  })
})

describe('the problem catalogue, its pages and the OpenAPI document', () => {
  test('every problem status the document declares is in the catalogue', () => {
    const statuses = new Set<number>(Object.values(PROBLEMS).map((p) => p.status))
    for (const [path, , operation] of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (response.content?.['application/problem+json']) {
          assert.ok(statuses.has(Number(status)), `${path} ${status} has no catalogue entry`)
        }
      }
    }
  })

  test('every problem a documented endpoint can answer is declared with its catalogue status', () => {
    const declared = new Set(
      operations().flatMap(([, , o]) =>
        Object.entries(o.responses)
          .filter(([, r]) => r.content?.['application/problem+json'])
          .map(([s]) => Number(s)),
      ),
    )
    const answeredByRoutes = [
      'bad-request',
      'invalid-parameter',
      'unauthorized',
      'not-found',
      'rate-limited',
      'internal-error',
      'unavailable',
    ] as const
    for (const name of answeredByRoutes) assert.ok(declared.has(PROBLEMS[name].status), name)
  })

  test('every catalogue entry has a page that states its title and status', async () => {
    for (const name of PROBLEM_NAMES) {
      const res = await fetch(`${world.baseUrl}/problems/${name}`)
      const html = await res.text()
      assert.equal(res.status, 200, name)
      assert.ok(html.includes(`${PROBLEMS[name].status} ${PROBLEMS[name].title}`), name)
    }
  })

  test('the document describes each problem with the catalogue schema', () => {
    const problem = doc.components.schemas.Problem
    assert.deepEqual(Object.keys(problem.properties), ['type', 'title', 'status', 'detail'])
    const invalid = doc.components.schemas.InvalidParameterProblem
    assert.ok(invalid.required.includes('invalid_params'))
  })
})
