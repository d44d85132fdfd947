// The API's JSON shapes as the dashboard reads them: the domain's own view types
// (docs/api-contract.md §2), the very types the API serializes, so the page and the API cannot
// drift apart. A type-only export: stripped, it leaves nothing for the browser to fetch.
export type { ContestView as ContestJson, SignalView as SignalJson } from './domain/contest-view.ts'
