// docs/openapi.json, the document client generators and clients/typescript start from, must be the
// one the API serves: served here by the real app (at the test base URL, with the default rate
// limits and the package's version) and normalised as scripts/openapi-document.ts says, by its base
// URL alone. Regenerate with `npm run openapi`.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { committedText, DOCUMENT_FILE } from '../scripts/openapi-document.ts'
import { VERSION } from '../src/main/version.ts'
import { TEST_BASE_URL, useTestWorld } from './support/test-world.ts'

describe('docs/openapi.json', () => {
  // the default burst: the rate policy is stated in the document's description
  const { api } = useTestWorld({ env: { RATE_LIMIT_BURST: '20' }, version: VERSION })

  it('is the served document, its base URL aside (npm run openapi rewrites it)', async () => {
    const res = await api.get('/v1/openapi.json')
    assert.equal(res.status, 200)
    const committed = readFileSync(DOCUMENT_FILE, 'utf8')
    const served = committedText(res.json, TEST_BASE_URL)
    assert.ok(
      served === committed,
      'docs/openapi.json differs from the served document: run `npm run openapi`',
    )
  })

  it('documents each venue’s references on every contest (decisions §16)', () => {
    const doc = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8'))
    const contest = doc.components.schemas.Contest
    assert.ok(contest.required.includes('venue') && contest.required.includes('venue_refs'))
    assert.deepEqual(doc.components.schemas.PolymarketRefs.required, [
      'slug',
      'condition_id',
      'up_token_id',
      'down_token_id',
    ])
    assert.deepEqual(doc.components.schemas.KalshiRefs.required, ['market_ticker', 'event_ticker'])
  })
})
