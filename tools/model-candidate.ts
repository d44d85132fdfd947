// `npm run model:candidate`: a candidate parameter file judged against the shipped one on Polymarket
// validation tapes or Kalshi's sandbox readings of validation seeds, before it may ship (docs/model.md,
// "The level error's tail", "The index read from the book, judged"). Each file is
// priced by the model itself on the same readings (tools/candidate-judge.ts): v2's expected log loss
// above the exact referee, its long shots against the referee's expected wins, and the outcomes' log
// loss paired against the shipped file, clustered by contest — the three parts of a rule written
// before the run. The referee is used only to measure; nothing is shipped.
// Usage: node tools/model-candidate.ts --candidate FILE [--base FILE] --seeds 4010,4011,4012
//        --polymarket-tapes 'ewma=DIR4010,DIR4011,DIR4012;shrink=…' [--marker NAME --json FILE]
//        node tools/model-candidate.ts --candidate FILE [--base FILE]
//        --kalshi 'ewma=2001,2002,2003;ewma-late=5001,…' [--from 2026-09-01 --days 10]: Kalshi's
//        readings on those seeds with that crowd (a SIM_PARAMS preset), in process
import { readFileSync, writeFileSync } from 'node:fs'
import { parseInstant } from '../src/domain/instant.ts'
import type { TailRow } from '../src/domain/tail-table.ts'
import { parseSimParams } from '../src/feeds/sim/sim-params-text.ts'
import { V2_PARAMS } from '../src/model/models.ts'
import { checkModelV2Params, type ModelV2Params, modelV2Version } from '../src/model/params.ts'
import {
  type Candidate,
  type CrowdResult,
  judgeCandidates,
  kalshiSandboxReadings,
  parseTapeSets,
  polymarketTapeReadings,
  summed,
} from './candidate-judge.ts'
import { replaceBlock } from './model-params-table.ts'
import { parseToolArgs } from './tool-args.ts'

const { values } = parseToolArgs(
  'model:candidate',
  'a candidate parameter file against the shipped one on Polymarket validation tapes or Kalshi sandbox seeds (docs/model.md)',
  {
    options: {
      candidate: { type: 'string', default: '' },
      base: { type: 'string', default: '' },
      seeds: { type: 'string', default: '' },
      'polymarket-tapes': { type: 'string', default: '' },
      kalshi: { type: 'string', default: '' },
      from: { type: 'string', default: '2026-09-01' },
      days: { type: 'string', default: '10' },
      card: { type: 'string', default: 'docs/model.md' },
      json: { type: 'string', default: '' },
      marker: { type: 'string', default: '' },
    },
  },
)
const log = (msg: string) => process.stderr.write(`model:candidate: ${msg}\n`)
const fail = (msg: string): never => {
  log(msg)
  process.exit(2)
}
const readParams = (flag: string, file: string): ModelV2Params => {
  try {
    return checkModelV2Params(JSON.parse(readFileSync(file, 'utf8')))
  } catch (err) {
    return fail(`${flag} ${file}: ${err instanceof Error ? err.message : String(err)}`)
  }
}
if (values.candidate === '') fail('--candidate FILE: the parameter file to judge')
const seedsOf = (text: string, flag: string): number[] => {
  const list = text.split(',').map(Number)
  if (text === '' || !list.every((s) => Number.isInteger(s) && s > 0))
    fail(`${flag} must be validation seeds, whole numbers separated by commas`)
  return list
}
const sets = parseTapeSets(values['polymarket-tapes'])
const seeds = sets.length === 0 ? [] : seedsOf(values.seeds, '--seeds')
const kalshiSets = parseTapeSets(values.kalshi).map(({ crowd, tapes }) => {
  const params = parseSimParams(crowd)
  return typeof params === 'string'
    ? fail(`--kalshi ${crowd}: ${params}`)
    : { crowd, params, seeds: seedsOf(tapes.join(','), `--kalshi ${crowd}`) }
})
if (sets.length === 0 && kalshiSets.length === 0)
  fail(
    "--polymarket-tapes 'crowd=DIR,…;…' (one tape set per seed, a row per crowd) or --kalshi 'crowd=SEED,…;…': one is needed",
  )
const from = parseInstant(values.from) ?? fail('--from must be an RFC 3339 instant or a YYYY-MM-DD date')
const days = Number(values.days)
if (!(Number.isInteger(days) && days > 0)) fail('--days must be a whole number of days')
if (values.marker !== '' && values.json === '') fail('--marker needs --json FILE beside it')

const candidates: Candidate[] = [
  { name: 'shipped', params: values.base === '' ? V2_PARAMS : readParams('--base', values.base) },
  { name: 'candidate', params: readParams('--candidate', values.candidate) },
]
const started = Date.now()
const results: CrowdResult[] = []
for (const { crowd, tapes } of sets) {
  if (tapes.length > seeds.length) fail(`--polymarket-tapes ${crowd}: more tape sets than --seeds has seeds`)
  const result = await judgeCandidates(crowd, candidates, polymarketTapeReadings(tapes, seeds))
  log(`${crowd}: ${result.readings} readings judged`)
  results.push(result)
}
for (const { crowd, params, seeds: own } of kalshiSets) {
  const label = `Kalshi ${crowd} (${own.join(', ')})`
  const result = await judgeCandidates(label, candidates, kalshiSandboxReadings(own, params, { from, days }))
  log(`${label}: ${result.readings} readings judged`)
  results.push(result)
}

const ratio = (row: TailRow | null | undefined): string =>
  row?.ratio == null ? '–' : `${row.ratio.toFixed(3)} (${row.claimed.toFixed(1)})`
const e4 = (x: number | undefined): string => ((x ?? Number.NaN) * 1e4).toFixed(2)
const e5 = (m: { value: number; se: number | null } | null | undefined): string =>
  m
    ? `${m.value >= 0 ? '+' : '−'}${Math.abs(m.value * 1e5).toFixed(1)} ± ${((m.se ?? Number.NaN) * 1e5).toFixed(1)}`
    : '–'
const rowOf = (label: string, r: CrowdResult, kind: 'v2' | 'alone'): string => {
  const s = r.cells[`shipped ${kind}`]
  const c = r.cells[`candidate ${kind}`]
  return `| ${label} | ${e4(s?.excess)} · ${e4(c?.excess)} | ${e5(c?.expected)} | ${ratio(s?.shots[0])} · ${ratio(c?.shots[0])} | ${ratio(s?.shots[1])} · ${ratio(c?.shots[1])} | ${e5(c?.outcomes)} |`
}
const v2Sum = { shipped: summed(results, 'shipped v2'), candidate: summed(results, 'candidate v2') }
const worstSe = Math.max(
  ...results.map((r) => {
    const o = r.cells['candidate v2']?.outcomes
    return o?.se ? o.value / o.se : Number.NEGATIVE_INFINITY
  }),
)
const verdict = {
  noCrowdWorseBy1Se: worstSe <= 1,
  excessLower: v2Sum.candidate.excess < v2Sum.shipped.excess,
  longShotsCloser: v2Sum.candidate.distance < v2Sum.shipped.distance,
}
const table = [
  `Shipped \`${modelV2Version(candidates[0]?.params as ModelV2Params)}\`, candidate \`${modelV2Version(candidates[1]?.params as ModelV2Params)}\`; ${sets.length > 0 ? `Polymarket validation seeds ${seeds.join(', ')} (one \`sim tape --venue polymarket\` set each, through the replay's reading step)` : ''}${sets.length > 0 && kalshiSets.length > 0 ? '; ' : ''}${kalshiSets.length > 0 ? `Kalshi on the seeds each row names, ${days} days from ${values.from} (the engine's reading step, in process)` : ''}, ${results.map((r) => r.readings).join(' / ')} readings; about ${Math.max(1, Math.round((Date.now() - started) / 60_000))} min. Long shots: the referee's expected wins over v2's claimed (claimed wins in brackets), both sides pooled.`,
  '',
  '| crowd | expected log loss above the referee, 10⁻⁴ a reading: shipped · candidate | candidate − shipped by expectation, 10⁻⁵ a reading | 0.5–2 %: shipped · candidate | 2–5 %: shipped · candidate | outcomes’ log loss, candidate − shipped, 10⁻⁵ a reading |',
  '|---|---|---|---|---|---|',
  ...results.map((r) => rowOf(`\`${r.crowd}\``, r, 'v2')),
  ...(results[0] ? [rowOf(`the model alone (\`${results[0].crowd}\`'s readings)`, results[0], 'alone')] : []),
  '',
  `Summed over the crowds (v2): expected log loss above the referee ${e4(v2Sum.shipped.excess)} → ${e4(v2Sum.candidate.excess)}·10⁻⁴; the long shots' distance from 1 ${v2Sum.shipped.distance.toFixed(4)} → ${v2Sum.candidate.distance.toFixed(4)}; the worst crowd's outcomes ${worstSe.toFixed(2)} SE against the candidate. The rule's three parts: ${verdict.noCrowdWorseBy1Se ? 'met' : 'not met'}, ${verdict.excessLower ? 'met' : 'not met'}, ${verdict.longShotsCloser ? 'met' : 'not met'}.`,
].join('\n')
process.stdout.write(`${table}\n`)
if (values.json !== '')
  writeFileSync(
    values.json,
    `${JSON.stringify({ shipped: modelV2Version(candidates[0]?.params as ModelV2Params), candidate: modelV2Version(candidates[1]?.params as ModelV2Params), seeds, verdict, summed: v2Sum, results: results.map((r) => ({ crowd: r.crowd, readings: r.readings, cells: Object.fromEntries(Object.entries(r.cells).map(([k, c]) => [k, { excess: c.excess, shots: c.shots.map((s) => (s ? { ratio: s.ratio, ratioSe: s.ratioSe, claimed: s.claimed } : null)), outcomes: c.outcomes, expected: c.expected }])) })) }, null, 2)}\n`,
  )
if (values.marker !== '') {
  writeFileSync(
    values.card,
    replaceBlock(readFileSync(values.card, 'utf8'), values.marker, table, values.card),
  )
  log(`wrote ${values.card} and ${values.json}`)
}
