// Every path the API answers and the methods each allows: the routes register these strings, the
// 405 stubs and the not-found handler read the Allow lists, and problem types point at the pages.
import type { HTTPMethods } from 'fastify'

export const PATHS = {
  home: '/',
  activeContest: '/v1/contests/active',
  contest: '/v1/contests/:ticker',
  contests: '/v1/contests',
  stream: '/v1/stream/contests',
  health: '/v1/health',
  openApi: '/v1/openapi.json',
  problemPage: '/problems/:name',
  docs: '/docs',
  docsAsset: '/docs/*',
  dashboard: '/dashboard',
  dashboardAsset: '/dashboard/*',
} as const

export type KnownPath = { url: string; allow: readonly HTTPMethods[] }

/**
 * Every path with the methods it allows (the rest get 405). HEAD on the stream is 405 too. OPTIONS is
 * in every list because every known path answers it (204, or the CORS preflight), and Allow names
 * what the resource supports (RFC 9110 §10.2.1).
 */
export const KNOWN_PATHS: readonly KnownPath[] = [
  { url: PATHS.home, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.activeContest, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.contest, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.contests, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.stream, allow: ['GET', 'OPTIONS'] },
  { url: PATHS.health, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.openApi, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.problemPage, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.docs, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.docsAsset, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.dashboard, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { url: PATHS.dashboardAsset, allow: ['GET', 'HEAD', 'OPTIONS'] },
]

/**
 * The one kind of request besides health and preflights that is not rate limited (see
 * routes/web-pages.ts): the dashboard's own modules and styles, static and keyless, of which one page
 * load fetches more than the burst. The pages themselves (`/`, `/dashboard`, `/docs`) and the
 * dashboard's API calls are counted like every other request (decisions §5).
 */
export const UNCOUNTED_PAGE_PATHS: readonly string[] = [PATHS.dashboardAsset]

/** The page a problem `type` URI resolves to. */
export function problemPagePath(name: string): string {
  return PATHS.problemPage.replace(':name', name)
}
