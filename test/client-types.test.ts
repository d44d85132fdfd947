// clients/typescript/src/generated/api-types.ts must be what its generator makes of the document the
// API serves (served here by the real app, normalised as docs/openapi.json is): a schema change that
// is not regenerated (`npm run generate` in clients/typescript) fails here.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { generateTypes } from '../clients/typescript/scripts/openapi-to-ts.ts'
import { committedText } from '../scripts/openapi-document.ts'
import { VERSION } from '../src/main/version.ts'
import { REPO_ROOT } from './support/service-process.ts'
import { TEST_BASE_URL, useTestWorld } from './support/test-world.ts'

const GENERATED = path.join(REPO_ROOT, 'clients/typescript/src/generated/api-types.ts')

describe('the typed client’s generated types', () => {
  const { api } = useTestWorld({ env: { RATE_LIMIT_BURST: '20' }, version: VERSION })

  it('are the ones the served OpenAPI document generates', async () => {
    const served = JSON.parse(committedText((await api.get('/v1/openapi.json')).json, TEST_BASE_URL))
    const expected = generateTypes(served)
    assert.ok(
      expected === readFileSync(GENERATED, 'utf8'),
      'src/generated/api-types.ts differs from the served document: run `npm run generate` in clients/typescript',
    )
    // what a bot reads off a contest is typed, each venue's references by name
    assert.match(expected, /venue_refs: KalshiRefs \| PolymarketRefs \| null/)
    assert.match(expected, /"signal.emitted": SignalEmittedPayload/)
  })

  it('refuse a schema construct the generator does not know, rather than mistype it', () => {
    const doc = { components: { schemas: { Odd: { oneOf: [{ type: 'string' }] } } }, paths: {} }
    assert.throws(() => generateTypes(doc), /unsupported schema/)
  })
})
