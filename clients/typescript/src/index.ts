// @contest-signals/client: a typed client of the Contest Signals API (docs/api-contract.md): the
// REST operations with 429 handling, history paging, and the resumable stream. Types are generated
// from the service's OpenAPI document (src/generated/api-types.ts).
export {
  type ContestSignalsClient,
  createClient,
  type HistoryPaging,
  type HistoryQuery,
  type RequestOptions,
} from './client.ts'
export { ApiError } from './errors.ts'
export type * from './generated/api-types.ts'
export type { ClientOptions, RateLimitedInfo } from './options.ts'
export { createSseParser, type SseEvent, type SseParser } from './sse.ts'
export type { ContestStream, StreamEvent, StreamOptions, StreamStatus } from './stream.ts'
