import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { pooledTailRow, tailRatioText, tailTable } from './tail-table.ts'

const twoPercent = (contest: string, y: number) => ({ contest, p: 0.03, y })

describe('tail table', () => {
  it('counts the long shot of each bucket: up below ½, down above', () => {
    const rows = tailTable([
      { contest: 'a', p: 0.03, y: 1 },
      { contest: 'b', p: 0.97, y: 0 },
      { contest: 'c', p: 0.5, y: 1 },
    ])
    const up = rows.find((r) => r.label === '2–5 %') ?? assert.fail()
    const down = rows.find((r) => r.label === '95–98 %') ?? assert.fail()
    assert.deepEqual([up.readings, up.realised, up.contests], [1, 1, 1])
    assert.ok(Math.abs(up.claimed - 0.03) < 1e-12)
    assert.deepEqual([down.readings, down.realised, down.contests], [1, 1, 1])
    assert.ok(Math.abs(down.claimed - 0.03) < 1e-12)
  })

  it("clusters the ratio's error by contest: a win repeated over one contest's readings is one clump", () => {
    // the same 40 readings and 4 wins: in 4 of 40 one-reading contests, or all in one of 10 four-reading ones
    const spread = Array.from({ length: 40 }, (_, i) => twoPercent(`c${i}`, i < 4 ? 1 : 0))
    const clumped = Array.from({ length: 40 }, (_, i) => twoPercent(`c${Math.floor(i / 4)}`, i < 4 ? 1 : 0))
    const a = tailTable(spread).find((r) => r.label === '2–5 %') ?? assert.fail()
    const b = tailTable(clumped).find((r) => r.label === '2–5 %') ?? assert.fail()
    assert.deepEqual([a.contests, b.contests], [40, 10])
    assert.equal(a.ratio, b.ratio)
    assert.ok(a.ratioSe !== null && b.ratioSe !== null)
    // by hand: √(40/39 · (4·0.9² + 36·0.1²)) / 1.2 = 1.60 and √(10/9 · (3.6² + 9·0.4²)) / 1.2 = 3.33
    assert.ok(Math.abs(a.ratioSe - 1.6) < 0.01)
    assert.ok(Math.abs(b.ratioSe - 10 / 3) < 0.01)
  })

  it('matches the independent-readings binomial error when every reading is its own contest', () => {
    const pts = Array.from({ length: 1000 }, (_, i) => twoPercent(`c${i}`, i % 25 === 0 ? 1 : 0))
    const row = tailTable(pts).find((r) => r.label === '2–5 %') ?? assert.fail()
    // ratio 40/30; the SE of a sum of Bernoulli(≈0.04) over 1000 readings is √(1000·0.04·0.96) ≈ 6.2 wins
    assert.ok(Math.abs(row.ratio! - 40 / 30) < 1e-12)
    assert.ok(Math.abs(row.ratioSe! * 30 - Math.sqrt(1000 * 0.04 * 0.96)) < 0.2)
  })

  it('has no error with fewer than two contests, and no ratio when nothing was claimed', () => {
    const rows = tailTable([twoPercent('only', 1), twoPercent('only', 1)])
    const up = rows.find((r) => r.label === '2–5 %') ?? assert.fail()
    assert.equal(up.ratioSe, null)
    const empty = rows.find((r) => r.label === '0–0.5 %') ?? assert.fail()
    assert.deepEqual([empty.ratio, empty.ratioSe, empty.contests], [null, null, 0])
  })

  it('pools tables over disjoint contests exactly as one table over all of them', () => {
    const seedA = Array.from({ length: 30 }, (_, i) => twoPercent(`a${i % 12}`, i % 7 === 0 ? 1 : 0))
    const seedB = Array.from({ length: 50 }, (_, i) => ({
      contest: `b${i % 9}`,
      p: 0.021 + i / 2000,
      y: i % 11 === 0 ? 1 : 0,
    }))
    const pick = (pts: typeof seedA) => tailTable(pts).find((r) => r.label === '2–5 %') ?? assert.fail()
    const pooled = pooledTailRow([pick(seedA), pick(seedB)]) ?? assert.fail()
    const whole = pick([...seedA, ...seedB])
    assert.equal(pooled.contests, whole.contests)
    assert.equal(pooled.realised, whole.realised)
    assert.ok(Math.abs(pooled.claimed - whole.claimed) < 1e-12)
    assert.ok(Math.abs((pooled.ratioSe ?? 0) - (whole.ratioSe ?? 1)) < 1e-12)
    assert.equal(pooledTailRow([]), null)
  })

  it('prints a ratio with its error, without one, or a dash', () => {
    assert.equal(tailRatioText({ ratio: 0.75, ratioSe: 0.214 }), '0.75 ± 0.21')
    assert.equal(tailRatioText({ ratio: 1.2, ratioSe: null }), '1.20')
    assert.equal(tailRatioText({ ratio: null, ratioSe: null }), '–')
  })
})
