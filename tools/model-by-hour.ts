// `npm run model:by-hour`: where on the clock two parameter files part, on Polymarket sandbox
// tapes (one a seed, pooled) (docs/model.md, "Seeds 3001 and 5002 on `969bd850`"). Each file is priced by the model
// itself on the same judged readings, as tools/candidate-judge.ts prices a candidate; by the UTC hour
// a window opens in: the outcomes' log loss paired (candidate − base, what a look's table moves by)
// and each file's expected log loss above the exact referee (no outcome luck). Then the windows of
// the hour that moved most, and the share of v1's gap to the referee each file closes by outcomes
// and by expectation (the candidate's model alone too: what the pool with the crowd's book adds). The referee is used only to measure; nothing is fitted or shipped.
// Usage: node tools/model-by-hour.ts --tape FILE[,FILE…] --seed N[,N…] --judged-from 2026-09-04 --base FILE
//        [--candidate FILE] (the shipped file by default)
import { readFileSync } from 'node:fs'
import { gbmEwma1Model } from '../src/domain/model.ts'
import { logLossOf } from '../src/domain/scores.ts'
import { V2_PARAMS } from '../src/model/models.ts'
import { checkModelV2Params, type ModelV2Params, modelV2Version } from '../src/model/params.ts'
import { settlementMeanProbability } from '../src/model/settlement-mean-model.ts'
import { type Judged, polymarketTapeReadings } from './candidate-judge.ts'
import { parseToolArgs } from './tool-args.ts'

const { values } = parseToolArgs(
  'model:by-hour',
  'two parameter files by the UTC hour a window opens in, on Polymarket sandbox tapes (one a seed)',
  {
    options: {
      tape: { type: 'string', default: '' },
      seed: { type: 'string', default: '' },
      'judged-from': { type: 'string', default: '' },
      base: { type: 'string', default: '' },
      candidate: { type: 'string', default: '' },
    },
  },
)

const fail = (msg: string): never => {
  process.stderr.write(`model:by-hour: ${msg}\n`)
  process.exit(2)
}

function paramsFile(file: string): ModelV2Params {
  try {
    return checkModelV2Params(JSON.parse(readFileSync(file, 'utf8')))
  } catch (err) {
    return fail(`${file}: ${(err as Error).message}`)
  }
}

/** Sums over a set of readings: the paired outcome loss, each file's and v1's excess over the referee. */
type Sums = { readings: number; paired: number; base: number; candidate: number; v1: number }
const zero = (): Sums => ({ readings: 0, paired: 0, base: 0, candidate: 0, v1: 0 })

type Window = Sums & { opensAt: number; up: number; p: { base: number; candidate: number; referee: number } }

/** Both files and v1 on every reading opening at or after `judgedFrom`: by hour, by window, in all. */
function byHour(
  readings: (each: (r: Judged) => void) => Promise<void>,
  base: ModelV2Params,
  candidate: ModelV2Params,
  judgedFrom: number,
): Promise<{
  /** `alone`: the candidate's model alone (before the pool), its excess over the referee */
  total: Sums & { alone: number; outcome: { base: number; candidate: number; v1: number; referee: number } }
  hours: Sums[]
  windows: Map<number, Map<string, Window>>
}> {
  const total = { ...zero(), alone: 0, outcome: { base: 0, candidate: 0, v1: 0, referee: 0 } }
  const hours = Array.from({ length: 24 }, zero)
  const windows = new Map<number, Map<string, Window>>()
  return readings(({ inputs, contest, y, referee }) => {
    if (inputs.opensAt < judgedFrom) return
    const pb = settlementMeanProbability(inputs, base).probabilityUp
    const priced = settlementMeanProbability(inputs, candidate)
    const pc = priced.probabilityUp
    const p1 = gbmEwma1Model.probabilityUp(inputs).probabilityUp
    const excess = (p: number) => logLossOf(p, referee) - logLossOf(referee, referee)
    const hour = new Date(inputs.opensAt).getUTCHours()
    const perHour = windows.get(hour) ?? new Map<string, Window>()
    windows.set(hour, perHour)
    const window = perHour.get(contest) ?? {
      opensAt: inputs.opensAt,
      ...zero(),
      up: y,
      p: { base: 0, candidate: 0, referee: 0 },
    }
    perHour.set(contest, window)
    for (const s of [total, hours[hour] as Sums, window]) {
      s.readings++
      s.paired += logLossOf(pc, y) - logLossOf(pb, y)
      s.base += excess(pb)
      s.candidate += excess(pc)
      s.v1 += excess(p1)
    }
    window.p.base += pb
    window.p.candidate += pc
    window.p.referee += referee
    total.alone += excess(priced.modelAloneUp ?? pc)
    total.outcome.base += logLossOf(pb, y)
    total.outcome.candidate += logLossOf(pc, y)
    total.outcome.v1 += logLossOf(p1, y)
    total.outcome.referee += logLossOf(referee, y)
  }).then(() => ({ total, hours, windows }))
}

if (import.meta.main) {
  if (!values.tape || !values.base || !values.seed || !values['judged-from'])
    fail('--tape, --seed, --judged-from and --base are needed (--help lists the options)')
  const seeds = values.seed.split(',').map(Number)
  const tapes = values.tape.split(',')
  const judgedFrom = Date.parse(
    `${values['judged-from']}${values['judged-from'].includes('T') ? '' : 'T00:00:00Z'}`,
  )
  if (!seeds.every(Number.isInteger) || Number.isNaN(judgedFrom))
    fail('--seed is a list of integers, --judged-from a date')
  if (tapes.length !== seeds.length) fail(`${tapes.length} tapes and ${seeds.length} seeds: one tape a seed`)
  const base = paramsFile(values.base)
  const candidate = values.candidate ? paramsFile(values.candidate) : V2_PARAMS
  const { total, hours, windows } = await byHour(
    polymarketTapeReadings(tapes, seeds),
    base,
    candidate,
    judgedFrom,
  )
  if (total.readings === 0) fail(`no settled reading of ${values.tape} opens after ${values['judged-from']}`)
  const e4 = (x: number, n: number) => ((x / n) * 1e4).toFixed(2).replace('-', '−')
  const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`
  const out: string[] = [
    `seed ${seeds.join(', ')}: base ${modelV2Version(base)}, candidate ${modelV2Version(candidate)}; ${total.readings} judged readings`,
    '',
    '| UTC hour | readings | outcomes, candidate − base (sum; per reading ·10⁻⁴) | excess over the referee ·10⁻⁴, base → candidate |',
    '|---|---|---|---|',
  ]
  for (const [h, s] of hours.entries())
    if (s.readings > 0)
      out.push(
        `| ${h} | ${s.readings} | ${signed(s.paired)}; ${e4(s.paired, s.readings)} | ${e4(s.base, s.readings)} → ${e4(s.candidate, s.readings)} |`,
      )
  out.push(
    `| all | ${total.readings} | ${signed(total.paired)}; ${e4(total.paired, total.readings)} | ${e4(total.base, total.readings)} → ${e4(total.candidate, total.readings)} |`,
  )
  const worst = hours.reduce(
    (w, s, h) => (Math.abs(s.paired) > Math.abs((hours[w] as Sums).paired) ? h : w),
    0,
  )
  out.push('', `The windows of hour ${worst} (mean P(up) base / candidate / referee):`, '')
  for (const [contest, w] of windows.get(worst) ?? [])
    out.push(
      `- ${seeds.length > 1 ? `seed ${contest.split(':')[0]} ` : ''}${new Date(w.opensAt).toISOString().slice(0, 16)} ${w.up ? 'up' : 'down'}: outcomes ${signed(w.paired)}; P(up) ${(w.p.base / w.readings).toFixed(3)} / ${(w.p.candidate / w.readings).toFixed(3)} / ${(w.p.referee / w.readings).toFixed(3)}; excess ·10⁻⁴ ${e4(w.base, w.readings)} → ${e4(w.candidate, w.readings)}`,
    )
  const o = total.outcome
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`
  out.push(
    '',
    `v1's gap to the referee closed (v1 priced on the same inputs), by outcomes: base ${pct((o.v1 - o.base) / (o.v1 - o.referee))}, candidate ${pct((o.v1 - o.candidate) / (o.v1 - o.referee))}; by expectation (no outcome luck): base ${pct(1 - total.base / total.v1)}, candidate ${pct(1 - total.candidate / total.v1)} (its model alone, before the pool, ${pct(1 - total.alone / total.v1)})`,
  )
  process.stdout.write(`${out.join('\n')}\n`)
}
