// The model card's parameter table is the shipped file's (npm run model:params): a refit or a new
// field that did not reach docs/model.md fails here, not in a reader's hands.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { V2_PARAMS } from '../src/model/models.ts'
import { paramsTable } from '../tools/model-params-table.ts'
import { REPO_ROOT } from './support/service-process.ts'

describe('the model card’s parameter table', () => {
  it('is the shipped file’s, as npm run model:params writes it', () => {
    const card = readFileSync(path.join(REPO_ROOT, 'docs/model.md'), 'utf8')
    const block = /<!-- model:params start -->\n([\s\S]*?)\n<!-- model:params end -->/.exec(card)
    assert.ok(block, 'docs/model.md keeps the model:params markers')
    assert.equal(block[1], paramsTable())
  })

  it('says each Polymarket error by hour where the file measured it so', () => {
    const poly = V2_PARAMS.venuePools?.polymarket
    assert.ok(poly)
    const byHour = Array.from({ length: 24 }, (_, h) => (h === 3 ? 1e-8 : 4e-9))
    const table = paramsTable({
      ...V2_PARAMS,
      venuePools: { polymarket: { ...poly, basisVarianceByHour: byHour } },
    })
    assert.match(table, /\| Polymarket basis \|.+sd 0\.63–0\.63 bp but 1\.00 bp in hour 3 \|/)
    const { basisVarianceByHour: _, strikeEstimateVarianceByHour: __, ...pooled } = poly
    assert.doesNotMatch(paramsTable({ ...V2_PARAMS, venuePools: { polymarket: pooled } }), /UTC hour/)
  })
  it('says the crowd’s maps where the file reads the index from the book, and nothing without them', () => {
    const maps = [
      { minutesLeft: 1, intercept: 0.01, slope: 0.6, noise: 0.36 },
      { minutesLeft: 2, intercept: -0.02, slope: 0.8, noise: 0.04 },
    ]
    const { bookRead: _, bookReadAtLag: _atLag, ...unread } = V2_PARAMS
    assert.match(
      paramsTable({ ...unread, bookRead: maps }),
      /\| Kalshi index read from the book \|.+\(2\): a -0\.020–0\.010, b 0\.60–0\.80, noise sd 0\.20–0\.60 logit/,
    )
    assert.doesNotMatch(paramsTable({ ...unread, bookRead: maps }), /each hypothesis priced for it/)
    assert.match(
      paramsTable({ ...unread, bookRead: maps, bookReadAtLag: true }),
      /weighed by the book, each hypothesis priced for it at the spot of the crowd's measured lag before the book, through/,
    )
    assert.doesNotMatch(paramsTable(unread), /index read from the book/)
  })
})
