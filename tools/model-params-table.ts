// The parameter table of docs/model.md (`<!-- model:params -->`), from the shipped parameter file:
// written by `npm run model:card` and on its own by `npm run model:params` (after a refit, without
// the card's held-out run).
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type CrowdMap, QUOTE_NU } from '../src/model/index-read.ts'
import { createReadingModel, DEFAULT_MODEL, V2_PARAMS } from '../src/model/models.ts'
import type { ModelV2Params, PoolBucket } from '../src/model/params.ts'
import { trainingText } from './fit/fit-source.ts'

const minutes = (b: PoolBucket): string =>
  b.fromMinutesLeft === b.toMinutesLeft ? `${b.fromMinutesLeft}` : `${b.fromMinutesLeft}–${b.toMinutesLeft}`

function poolRows(venue: string, pool: PoolBucket[], book: ModelV2Params['book']): string[] {
  return [
    ...pool.map(
      (b) =>
        `| ${venue} pooling, ${minutes(b)} min left, at full weight | logit p = ${b.intercept} + ${b.model}·logit(model) + ${b.mid}·logit(mid) |`,
    ),
    `| ${venue} book weight | (1 − spread)^${book.spreadPower} · (1 − age/(age + time left))^${book.agePower}${book.certaintyPower ? ` · (4·model·(1 − model))^${book.certaintyPower}` : ''} |`,
    ...(book.lagShift
      ? [
          `| ${venue} book read | moved in log-odds by logit(model now) − logit(model at the spot of the crowd's measured lag before the book) |`,
        ]
      : []),
  ]
}

/** A volatility level's half-lives and weights, as the table words them. */
function levelText(v: ModelV2Params['variance']): string {
  const longRun = Math.max(0, 1 - v.fastWeight - v.slowWeight).toFixed(2)
  return `fast EWMA half-life ${v.fastHalfLifeMin} min × ${v.fastWeight}, slow ${v.slowHalfLifeMin} min × ${v.slowWeight}, long-run level × ${longRun}`
}

/** The whole-minute level: the realised filter on the seconds where fitted, else the ranges' EWMA. */
function wholeMinuteText(v: NonNullable<ModelV2Params['ranged']>['variance']): string {
  const r = v.realized
  if (r === undefined)
    return `ln(high/low)² ÷ ${v.rangeScale} in place of each squared return; ${levelText(v)}`
  const longRun = Math.max(0, 1 - v.fastWeight - v.slowWeight).toFixed(2)
  return [
    `realised-GARCH filter on the seconds: noise floor ${r.noiseFloor} off each minute's squared moves, ÷ ${r.secondsScale}, a move over ${r.jumpSd} sd of the rest a jump`,
    `gain half-life ${v.fastHalfLifeMin} min, α ${r.alpha}, persistence ${r.persistence}, slow EWMA ${v.slowHalfLifeMin} min`,
    `path × ${v.fastWeight}, slow × ${v.slowWeight}, long-run × ${longRun}; clipped at ${v.winsorSd} sd`,
  ].join('; ')
}

export function paramsTable(P: ModelV2Params = V2_PARAMS): string {
  const poly = P.venuePools?.polymarket
  const minute = P.returnsOnlyPool
  return [
    `\`${createReadingModel(DEFAULT_MODEL).version}\`, fitted on ${trainingText(P.training)}${poly ? `; Polymarket's pool on ${trainingText(poly.training)}` : ''}${minute ? `; the one-minute pool on ${trainingText(minute.training)}` : ''}:`,
    '',
    '| parameter | value |',
    '|---|---|',
    `| σ̄ (per minute, deseasonalised) | ${P.sigmaBar} |`,
    `| hour-of-day sd factors, 00–23 UTC | ${P.seasonal.hour.map((h) => h.toFixed(2)).join(' ')} |`,
    `| minute-of-hour sd factors | :00 ${P.seasonal.minute.hour}, :15/:30/:45 ${P.seasonal.minute.quarter}, other 5-minute marks ${P.seasonal.minute.five}, the rest ${P.seasonal.minute.other} |`,
    `| weekend sd factor | ${P.seasonal.weekend} |`,
    `| volatility level (returns only) | ${levelText(P.variance)}; returns clipped at ${P.variance.winsorSd} sd |`,
    ...(P.ranged === undefined
      ? [
          '| where the feed saw minutes whole | no ranges in the training closes: the returns-only level everywhere |',
        ]
      : [
          `| where the feed saw the last hour's minutes whole | ${wholeMinuteText(P.ranged.variance)}; variance scale ${P.ranged.variance.scale}; Student t ν ${P.ranged.nu}${P.ranged.jumps ? `; jumps on top, ${P.ranged.jumps.perVariance} per unit of diffusive variance, Laplace scale ${(P.ranged.jumps.laplaceScale * 1e4).toFixed(1)} bp` : ''} |`,
        ]),
    `| variance scale (returns only) | ${P.variance.scale} |`,
    `| Student t ν (returns only) | ${P.nu >= 1000 ? `${P.nu} (the normal)` : P.nu} |`,
    `| basis (proxy spot only) | mean of ${P.basis.samples} strikes' samples + ${P.basis.shrink} zero; error variance ${P.basis.variance} (sd ${(1e4 * Math.sqrt(P.basis.variance)).toFixed(2)} bp) |`,
    ...poolRows('Kalshi', P.pool, P.book),
    ...(P.bookRead === undefined ? [] : [bookReadRow(P.bookRead, P.bookReadAtLag === true)]),
    ...(minute ? poolRows('One-minute history (returns only)', minute.pool, minute.book) : []),
    ...(poly
      ? [
          ...poolRows('Polymarket', poly.pool, poly.book),
          `| Polymarket strike estimate error | ${poly.strikeEstimateVariance === undefined ? 'not measured: the engine’s prior' : `variance ${poly.strikeEstimateVariance} (sd ${(1e4 * Math.sqrt(poly.strikeEstimateVariance)).toFixed(2)} bp), measured at window edges${hoursText(poly.strikeEstimateVarianceByHour)}`} |`,
          `| Polymarket basis | ${poly.basisDecay === undefined ? 'the mean above' : `the k-th newest of ${P.basis.samples} strikes weighed ${poly.basisDecay}^k`}; error variance ${poly.basisVariance === undefined ? 'the main fit’s' : `${poly.basisVariance} (sd ${(1e4 * Math.sqrt(poly.basisVariance)).toFixed(2)} bp), measured on its settlements${hoursText(poly.basisVarianceByHour)}`} |`,
        ]
      : []),
    '| side | the larger edge at the published probability (no rule fitted on the sandbox’s truth) |',
  ].join('\n')
}

/** The crowd's maps (index-read.ts) as the table says them: their ranges over the minutes left. */
function bookReadRow(maps: readonly CrowdMap[], atLag: boolean): string {
  const range = (xs: number[], digits: number) =>
    `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`
  const sds = maps.map((m) => Math.sqrt(m.noise))
  const book = atLag
    ? "the book, each hypothesis priced for it at the spot of the crowd's measured lag before the book,"
    : 'the book'
  return `| Kalshi index read from the book | before the pool, the model alone's five index hypotheses weighed by ${book} through the crowd's map logit(quote) = a + b·logit(P), one per minutes left (${maps.length}): a ${range(
    maps.map((m) => m.intercept),
    3,
  )}, b ${range(
    maps.map((m) => m.slope),
    2,
  )}, noise sd ${range(sds, 2)} logit (a t with ${QUOTE_NU} degrees of freedom) |`
}

/** A measured error's hours (level-hours.ts) as the table says them: the sd's range, the widest hour apart. */
function hoursText(byHour: readonly number[] | undefined): string {
  if (byHour === undefined) return ''
  const bp = byHour.map((v) => 1e4 * Math.sqrt(v))
  const widest = bp.indexOf(Math.max(...bp))
  const rest = bp.filter((_, h) => h !== widest)
  return `; by the UTC hour a window opens in, sd ${Math.min(...rest).toFixed(2)}–${Math.max(...rest).toFixed(2)} bp but ${bp[widest]?.toFixed(2)} bp in hour ${widest}`
}

/** `text` with the body between `<!-- name start -->` and `<!-- name end -->` replaced. */
export function replaceBlock(text: string, name: string, body: string, file: string): string {
  const start = `<!-- ${name} start -->`
  const end = `<!-- ${name} end -->`
  const a = text.indexOf(start)
  const b = text.indexOf(end)
  if (a < 0 || b < a) throw new Error(`${file} has no ${start} … ${end} markers`)
  return `${text.slice(0, a + start.length)}\n${body}\n${text.slice(b)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const card = process.argv[2] ?? 'docs/model.md'
  writeFileSync(card, replaceBlock(readFileSync(card, 'utf8'), 'model:params', paramsTable(), card))
  process.stderr.write(`model:params: wrote the parameter table of ${card}\n`)
}
