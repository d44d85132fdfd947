// Protocol details every response and every method shares: nosniff on every answer, 405 with Allow
// for any other method on a known path (QUERY included), plain OPTIONS, malformed escapes in the
// query, and invalid_params naming every bad parameter.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { rawRequest } from './support/raw-request.ts'
import { openStream } from './support/sse-client.ts'
import { useTestWorld } from './support/test-world.ts'

const { world } = useTestWorld()
const auth = () => ({ authorization: `Bearer ${world.key}` })

describe('X-Content-Type-Options', () => {
  test('every response says nosniff: data, problems, 404, 405, health, OpenAPI, problem pages, preflight, stream, unparseable', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      ['GET', '/v1/contests?series=X', auth()],
      ['GET', '/v1/contests?series=X&limit=0', auth()],
      ['GET', '/v1/contests/active?series=X', {}],
      ['GET', '/nowhere', {}],
      ['DELETE', '/v1/contests', {}],
      ['GET', '/v1/health', {}],
      ['HEAD', '/v1/health', {}],
      ['GET', '/v1/openapi.json', {}],
      ['GET', '/problems/not-found', {}],
      ['OPTIONS', '/v1/contests', { origin: 'https://a.example', 'access-control-request-method': 'GET' }],
      ['GET', '/v1/contests/%E0%A4%A', auth()],
    ]
    for (const [method, path, headers] of cases) {
      const res = await rawRequest(`${world.baseUrl}${path}`, { method, headers })
      assert.equal(res.headers['x-content-type-options'], 'nosniff', `${method} ${path} → ${res.status}`)
    }
    const stream = await openStream(`${world.baseUrl}/v1/stream/contests?series=X`, { key: world.key })
    assert.equal(stream.headers.get('x-content-type-options'), 'nosniff')
    stream.close()
  })
})
