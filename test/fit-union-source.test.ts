// Several tape sets read as one fit's data (`fit:model --polymarket-tapes A,B`): a pool fitted on a
// mixture of crowds needs one tape set per crowd, each on its own timeline.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { FitReading, FitSource } from '../tools/fit/fit-source.ts'
import { unionFitSource } from '../tools/fit/fit-source.ts'

const DAY = 86_400_000
const START = Date.parse('2026-06-01T00:00:00Z')

/** A tape set of one file with `n` readings (only the ticker matters here) and one run of closes. */
function tapeSet(name: string, from: number, days: number, n: number): FitSource {
  return {
    from,
    until: from + days * DAY,
    closesFrom: from - DAY,
    training: (readings, contests) => ({
      source: 'tapes',
      tapes: [name],
      origin: `sim ${name}`,
      from: new Date(from).toISOString(),
      until: new Date(from + days * DAY).toISOString(),
      contests,
      readings,
    }),
    closeRuns: async () => [[{ at: from, priceDollars: 90_000 }]],
    async forEachReading(each) {
      for (let i = 0; i < n; i++) each({ ticker: `${name}-${i}` } as FitReading)
    },
  }
}

describe('several tape sets as one fit source', () => {
  it('reads every set’s readings and closes in turn, and names every tape over the whole span', async () => {
    const a = tapeSet('poly-1001-ewma.ndjson.gz', START, 8, 3)
    const b = tapeSet('poly-1002-shrink.ndjson.gz', START + DAY, 8, 2)
    const union = unionFitSource([a, b])
    const seen: string[] = []
    await union.forEachReading((r) => seen.push(r.ticker))
    assert.deepEqual(
      seen,
      [0, 1, 2]
        .map((i) => `poly-1001-ewma.ndjson.gz-${i}`)
        .concat([0, 1].map((i) => `poly-1002-shrink.ndjson.gz-${i}`)),
    )
    assert.equal((await union.closeRuns()).length, 2, 'one run of closes per set: never spliced')
    assert.equal(union.from, START)
    assert.equal(union.until, START + 9 * DAY)
    assert.equal(union.closesFrom, START - DAY)
    const t = union.training(5, 4)
    assert.equal(t.source, 'tapes')
    if (t.source !== 'tapes') return
    assert.deepEqual(t.tapes, ['poly-1001-ewma.ndjson.gz', 'poly-1002-shrink.ndjson.gz'])
    assert.equal(t.from, new Date(START).toISOString())
    assert.equal(t.until, new Date(START + 9 * DAY).toISOString())
    assert.deepEqual([t.readings, t.contests], [5, 4])
  })

  it('is the one set itself when given one, and refuses none', () => {
    const a = tapeSet('poly-1001.ndjson.gz', START, 8, 1)
    assert.equal(unionFitSource([a]), a)
    assert.throws(() => unionFitSource([]), /no tape set/)
  })
})
