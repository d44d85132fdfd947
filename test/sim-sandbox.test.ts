// The sandbox is independent of the model (decisions §3): the simulator imports no model code (a
// lint rule, proven to fire here), its quotes are not the model's probability, its crowd errs the
// way the specification says, and its hidden truth (the oracle) is calibrated and beats the crowd.

import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { EWMA_CLOSES, evaluateReading, ewmaVolatility, probabilityUp } from '../src/domain/model.ts'
import { QUARTER_MS } from '../src/domain/ticker.ts'
import { createSimOracle } from '../src/feeds/sim/oracle.ts'
import { type SimParams, withParams } from '../src/feeds/sim/sim-params.ts'
import { createSimPriceFeed } from '../src/feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../src/feeds/sim/sim-venue.ts'
import { createSimWorld } from '../src/feeds/sim/sim-world.ts'
import { NO_ANSWER } from '../src/ports/venue.ts'

const SERIES = 'KXBTC15M'
const START = Date.parse('2026-09-01T00:00:00Z')

type Row = {
  contest: number
  minutesLeft: number
  mid: number
  oracle: number
  modelEwma: number
  modelTrueSigma: number
  edge: number
  up: boolean
}

/** Every minute 1–14 of `contests` consecutive windows of one seed, with what each party says. */
async function readings(
  seed: number,
  contests: number,
  params?: SimParams,
  referee: 'exact' | 'gaussian' = 'gaussian',
): Promise<Row[]> {
  const feed = createSimPriceFeed({ seed })
  const venue = createSimVenue({
    seed,
    series: [SERIES],
    ...(params ? { world: createSimWorld(seed, params) } : {}),
  })
  const oracle = createSimOracle({ seed, paths: 256 })
  const rows: Row[] = []
  for (let q = 0; q < contests; q++) {
    const m = await venue.marketAt(SERIES, START + q * QUARTER_MS)
    assert.ok(m && m.strikePriceDollars !== null)
    const result = await venue.result(m.ticker, m.expiresAt + 90_000)
    if (result?.kind !== 'settled') continue
    for (let minute = 1; minute <= 14; minute++) {
      const at = m.opensAt + minute * MINUTE_MS
      const quote = await venue.quote(m.ticker, at)
      const spot = feed.spotAtSync(at)
      if (
        !quote ||
        quote === NO_ANSWER ||
        quote.upAskCents === null ||
        quote.downAskCents === null ||
        spot === null
      )
        continue
      const closes = feed.minuteClosesBeforeSync(at, EWMA_CLOSES)
      const minutesLeft = 15 - minute
      const strike = m.strikePriceDollars
      rows.push({
        contest: q,
        minutesLeft,
        mid: (quote.upAskCents + 100 - quote.downAskCents) / 200,
        oracle:
          referee === 'exact'
            ? oracle.probabilityYes(m.ticker, at)
            : oracle.gaussianProbabilityYes(m.ticker, at),
        modelEwma: probabilityUp({ spot, strike, sigmaPerMinute: ewmaVolatility(closes), minutesLeft }),
        // the old simulator's own quote: the model's formula with the true σ
        modelTrueSigma: probabilityUp({
          spot,
          strike,
          sigmaPerMinute: oracle.sigmaPerMinuteAt(at),
          minutesLeft,
        }),
        edge: evaluateReading({ spot, strike, closes, minutesLeft, quote }).edgeCents,
        up: result.side === 'up',
      })
    }
  }
  return rows
}

const mean = (xs: readonly number[]): number => xs.reduce((a, x) => a + x, 0) / xs.length
const clamp = (p: number): number => Math.min(1 - 1e-6, Math.max(1e-6, p))
const logLoss = (rows: readonly Row[], p: (r: Row) => number): number =>
  mean(rows.map((r) => -Math.log(r.up ? clamp(p(r)) : 1 - clamp(p(r)))))

/** Slope of the logistic fit of the outcome on logit p (Newton's method): 1 when calibrated. */
function calibrationSlope(rows: readonly Row[], p: (r: Row) => number): number {
  const xs = rows.map((r) => Math.log(clamp(p(r)) / (1 - clamp(p(r)))))
  let a = 0
  let b = 1
  for (let iter = 0; iter < 30; iter++) {
    let ga = 0
    let gb = 0
    let haa = 0
    let hab = 0
    let hbb = 0
    for (const [i, x] of xs.entries()) {
      const q = 1 / (1 + Math.exp(-(a + b * x)))
      const y = rows[i]?.up ? 1 : 0
      const w = q * (1 - q)
      ga += y - q
      gb += (y - q) * x
      haa += w
      hab += w * x
      hbb += w * x * x
    }
    const det = haa * hbb - hab * hab
    a += (hbb * ga - hab * gb) / det
    b += (haa * gb - hab * ga) / det
  }
  return b
}

describe('the honest sandbox', () => {
  it('never imports model code: the lint rule fires on src/feeds/sim and lets its own imports pass', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-lint-'))
    try {
      copyFileSync(join(import.meta.dirname, '..', 'biome.json'), join(dir, 'biome.json'))
      mkdirSync(join(dir, 'src', 'feeds', 'sim'), { recursive: true })
      const probe = join(dir, 'src', 'feeds', 'sim', 'probe.ts')
      const biome = join(import.meta.dirname, '..', 'node_modules', '.bin', 'biome')
      const lint = () =>
        spawnSync(biome, ['lint', '--max-diagnostics=5', probe], { cwd: dir, encoding: 'utf8' })

      writeFileSync(
        probe,
        "import { normalCdf } from '../../domain/model.ts'\n\nexport const p = normalCdf(0)\n",
      )
      const forbidden = lint()
      assert.notEqual(forbidden.status, 0)
      assert.match(forbidden.stdout + forbidden.stderr, /never imports model code/)

      writeFileSync(
        probe,
        "import { formatTicker } from '../../domain/ticker.ts'\n\nexport const f = formatTicker\n",
      )
      const allowed = lint()
      assert.equal(allowed.status, 0, allowed.stdout + allowed.stderr)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("quotes something other than the model's probability, with edges of both signs", async () => {
    const rows = await readings(11, 400)
    assert.ok(rows.length > 3_500)
    for (const model of ['modelEwma', 'modelTrueSigma'] as const) {
      const gaps = rows.map((r) => Math.abs(r.mid - r[model]))
      assert.ok(mean(gaps) > 0.02, `${model}: mean |venue mid − model| = ${mean(gaps)}`)
      assert.ok(
        gaps.filter((g) => g < 0.005).length < rows.length / 4,
        `${model}: too many quotes at the model's number`,
      )
    }
    // With one minute left the venue prices the 60-s mean the contract pays on, not the spot at the
    // close: its log-odds are about √3·γ ≈ 1.6 times those of the model's formula even when that
    // formula is given the true σ (which is how the old simulator quoted: a ratio of 1).
    const logit = (p: number): number => Math.log(clamp(p) / (1 - clamp(p)))
    const lastMinute = rows.filter(
      (r) =>
        r.minutesLeft === 1 &&
        Math.abs(logit(r.modelTrueSigma)) > 0.2 &&
        Math.abs(logit(r.modelTrueSigma)) < 4,
    )
    assert.ok(lastMinute.length > 100, `${lastMinute.length} last-minute readings`)
    const ratios = lastMinute.map((r) => logit(r.mid) / logit(r.modelTrueSigma)).sort((a, b) => a - b)
    const median = ratios[ratios.length >> 1] as number
    assert.ok(median > 1.4, `venue / model log-odds at minute 14: median ratio ${median}`)
    assert.ok(rows.filter((r) => r.edge > 0).length > 300)
    assert.ok(rows.filter((r) => r.edge < 0).length > 300)
  })

  it('has a crowd that overprices long shots and YES: its quotes against the same crowd without those biases', async () => {
    // the same seed with γ = 1 and δ = 0: the same index, errors and noise, no favourite–longshot
    // bias and no YES optimism, so the difference is the bias alone
    // (books both sides always: a one-sided book has no mid to compare)
    const biased = await readings(12, 600, withParams({ crowd: { oneSidedBelow: 0 } }))
    const plain = await readings(12, 600, withParams({ crowd: { gamma: 1, delta: 0, oneSidedBelow: 0 } }))
    assert.equal(biased.length, plain.length)
    const shift = biased.map((r, i) => ({ oracle: r.oracle, d: r.mid - (plain[i] as Row).mid }))
    const longShots = shift.filter((r) => r.oracle < 0.08)
    const favourites = shift.filter((r) => r.oracle > 0.92)
    const middle = shift.filter((r) => r.oracle > 0.3 && r.oracle < 0.7)
    assert.ok(longShots.length > 300 && favourites.length > 300 && middle.length > 1_000)
    // a long shot's YES is dear, a favourite's cheap (γ < 1); YES a little dear at the money (δ > 0)
    assert.ok(mean(longShots.map((r) => r.d)) > 0.003, `long shots ${mean(longShots.map((r) => r.d))}`)
    assert.ok(mean(favourites.map((r) => r.d)) < -0.003, `favourites ${mean(favourites.map((r) => r.d))}`)
    const atTheMoney = mean(middle.map((r) => r.d))
    assert.ok(
      atTheMoney > 0.005 && atTheMoney < 0.015,
      `at the money ${atTheMoney} (δ = 0.04 in log-odds ≈ 1 point)`,
    )
  })

  it('hides a truth that is calibrated and scores better than the venue and the model', async () => {
    const rows = await readings(13, 600, undefined, 'exact')
    const slope = calibrationSlope(rows, (r) => r.oracle)
    assert.ok(slope > 0.85 && slope < 1.15, `oracle calibration slope ${slope}`)
    const oracle = logLoss(rows, (r) => r.oracle)
    const venue = logLoss(rows, (r) => r.mid)
    const model = logLoss(rows, (r) => r.modelEwma)
    assert.ok(oracle < venue, `log loss: oracle ${oracle}, venue mid ${venue}`)
    assert.ok(oracle < model, `log loss: oracle ${oracle}, model ${model}`)
  })
})
