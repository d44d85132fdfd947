// Examples for the OpenAPI document, recorded from the real app by test/openapi-examples.test.ts (never
// typed by hand) and attached to every response, stream event, parameter and shared schema, so docs,
// generated clients and fuzzers start from a real series, ticker and payload.
import recorded from './openapi-examples.json' with { type: 'json' }
import { PROBLEM_MEDIA_TYPE } from './problems.ts'

/** Stands for PUBLIC_BASE_URL in the recorded problem `type` URIs. */
export const EXAMPLE_BASE_URL = 'https://{base_url}'
/** Stands for the deployment epoch in recorded event ids (each store has its own). */
export const EXAMPLE_EPOCH = 'd02w08rn'

export type OpenApiExamples = {
  /** Kalshi's contests (the simulator's own shapes), and Polymarket's (a sim tape of the same quarter hours, replayed) */
  contests: {
    live: Json
    settled: Json
    history: Json
    etag: string
    polymarket: { live: Json; settled: Json }
  }
  health: Json
  /** by name; PROBLEMS_BY_OPERATION says which operation shows which */
  problems: Record<string, Json>
  stream: Record<'contest.opened' | 'signal.emitted' | 'contest.settled' | 'lastEventId', string>
  parameters: { series: string; ticker: string; limit: number; since: string; before: string }
}

// biome-ignore lint/suspicious/noExplicitAny: the document and the examples are plain JSON walked by key
type Json = any

/**
 * The problems an operation really answers with, where a status means something of its own there:
 * a 400 of the history names its bad `limit`, the active contest's names a missing `series`. Other
 * statuses (401, 429, 431, 500, 503) show the one recorded problem of that status: every problem
 * response needs one, or Swagger UI falls back to the Problem schema's example, a 404. The 500 is
 * recorded too, from a store whose read throws a fault no rule foresaw (the error handler's answer).
 */
const PROBLEMS_BY_OPERATION: Record<string, Record<string, string[]>> = {
  '/v1/contests': { '400': ['invalid-parameter'], '404': [] },
  '/v1/contests/active': { '400': ['series-required'], '404': ['no-live-contest'] },
  '/v1/contests/{ticker}': { '400': ['bad-request'], '404': ['not-found'] },
  '/v1/stream/contests': { '400': ['stream-series-required'], '404': [] },
}

/** Problems recorded for one operation only, never shown under another's status. */
const OPERATION_ONLY = new Set(Object.values(PROBLEMS_BY_OPERATION).flatMap((s) => Object.values(s).flat()))

const JSON_TYPE = 'application/json'
const SSE_TYPE = 'text/event-stream'

/** A recorded frame's `event`, `id` and `data` lines. */
function frameFields(frame: string): { event: string; id: string; data: string } {
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(frame)?.[1] ?? ''
  return { event: field('event'), id: field('id'), data: field('data') }
}

/** Returns `doc` with the recorded examples attached, problem URIs under `baseUrl`. */
export function attachExamples(doc: Json, baseUrl: string): Json {
  const ex: OpenApiExamples = JSON.parse(JSON.stringify(recorded).replaceAll(EXAMPLE_BASE_URL, baseUrl))
  const { live, settled, history, etag, polymarket } = ex.contests
  const bodies: Record<string, Record<string, { summary: string; value: Json }>> = {
    '/v1/contests/active': {
      live: { summary: 'The live contest with its signals so far', value: live },
      polymarket: {
        summary:
          'A live Polymarket contest: venue_refs give its slug, condition id and Up and Down token ids',
        value: polymarket.live,
      },
    },
    '/v1/contests/{ticker}': {
      settled: { summary: 'A settled contest with graded signals', value: settled },
      live: { summary: 'A live contest', value: live },
      polymarket: {
        summary: 'A settled Polymarket contest (its ticker is the event slug)',
        value: polymarket.settled,
      },
    },
    '/v1/contests': { page: { summary: 'Two settled contests, newest first', value: history } },
    '/v1/health': { ok: { summary: 'All checks pass', value: ex.health } },
  }
  const frames = {
    'contest.opened': 'A contest opens (also the first frame of a fresh connect)',
    'signal.emitted': 'A signal is raised: the signal and its contest',
    'contest.settled': 'The contest settles, its signals graded',
  } as const
  const parameterValues: Record<string, unknown> = {
    ...ex.parameters,
    last_event_id: ex.stream.lastEventId,
    'last-event-id': ex.stream.lastEventId,
    'if-none-match': etag,
  }

  for (const [path, operations] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    for (const [method, operation] of Object.entries(operations) as [string, Json][]) {
      for (const p of operation.parameters ?? []) {
        if (p.name in parameterValues) p.examples = { example: { value: parameterValues[p.name] } }
      }
      for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, Json][]) {
        const json = response.content?.[JSON_TYPE]
        if (json && method === 'get' && status === '200' && bodies[path]) json.examples = bodies[path]
        const problem = response.content?.[PROBLEM_MEDIA_TYPE]
        if (problem) {
          const own = PROBLEMS_BY_OPERATION[path]?.[status]
          const matching = own
            ? own.map((name) => [name, ex.problems[name]] as const)
            : Object.entries(ex.problems).filter(
                ([name, body]) => !OPERATION_ONLY.has(name) && String(body.status) === status,
              )
          if (matching.length > 0)
            problem.examples = Object.fromEntries(matching.map(([name, value]) => [name, { value }]))
        }
        const sse = response.content?.[SSE_TYPE]
        if (sse) {
          // as the frame model of the schema (event, id, data), and as raw frames in the description
          sse.examples = Object.fromEntries(
            Object.entries(frames).map(([event, summary]) => [
              event,
              { summary, value: frameFields(ex.stream[event as keyof typeof frames]) },
            ]),
          )
          operation.description = `${operation.description ?? ''}\n\nExample frames, one per event:\n\n${Object.keys(
            frames,
          )
            .map((event) => `\`\`\`\n${ex.stream[event as keyof typeof frames].trimEnd()}\n\`\`\``)
            .join('\n\n')}`
        }
      }
    }
  }

  const schemas = doc.components?.schemas ?? {}
  const emitted = JSON.parse(/^data: (.*)$/m.exec(ex.stream['signal.emitted'])?.[1] ?? 'null')
  const schemaExamples: Record<string, Json[]> = {
    Contest: [live, settled, polymarket.live, polymarket.settled],
    KalshiRefs: [settled.venue_refs],
    PolymarketRefs: [polymarket.settled.venue_refs],
    Signal: [live.signals[0], settled.signals[0]],
    ContestList: [history],
    SignalEmittedPayload: [emitted],
    Health: [ex.health],
    Problem: [ex.problems['not-found']],
    InvalidParameterProblem: [ex.problems['invalid-parameter']],
  }
  for (const [name, examples] of Object.entries(schemaExamples)) {
    if (schemas[name]) schemas[name].examples = examples
  }
  return doc
}
