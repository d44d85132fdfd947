// What the dashboard's browser tests share: Debian's Chromium (or CHROMIUM_PATH, which the test run's
// prerequisite step checks), a context whose pages may reach only the service under test, and that
// service's settings on the simulator's fast clock.
import path from 'node:path'
import { type Browser, type BrowserContext, chromium } from 'playwright-core'
import { freePort } from './ports.ts'
import { OFF_PAUSE_START } from './timeline.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
}

export type RouteAnswer = { status: number; headers: Record<string, string>; body: string }

/**
 * A fresh context whose pages may reach only 127.0.0.1: any other address is refused and pushed onto
 * `external`; `route` may answer a request itself.
 */
export async function offlineContext(
  browser: Browser,
  external: string[],
  route?: (url: URL) => RouteAnswer | undefined,
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  // the suite runs six files at once on two cores beside their services: a CI run took over
  // Playwright's 30 s default to load the API reference (its 1.4 MB bundle parsed in 4 s under six
  // CPU hogs); these bound a hang, they pace nothing
  context.setDefaultNavigationTimeout(90_000)
  context.setDefaultTimeout(60_000)
  await context.route('**/*', (r) => {
    const url = new URL(r.request().url())
    if (url.protocol !== 'data:' && url.hostname !== '127.0.0.1') {
      external.push(url.href)
      return r.abort()
    }
    const answer = route?.(url)
    return answer ? r.fulfill(answer) : r.continue()
  })
  return context
}

/** `serve` on a SQLite file in `dir`, seed 17 at 60× away from the weekly pause, a day of history, a limiter that never refuses. */
export async function dashboardServiceEnv(dir: string): Promise<Record<string, string>> {
  return {
    DATABASE_URL: `sqlite:${path.join(dir, 'cs.db')}`,
    // one port for every start: a page finds the service where it was after a restart (no other
    // test's listen(0) is given it while this one's service is down)
    PORT: String(await freePort()),
    SIM_SPEED: '60',
    SIM_START: OFF_PAUSE_START,
    SIM_SEED: '17',
    SIM_BACKFILL_DAYS: '1',
    // At 60× the default 10 s of lateness is a sixth of a wall second: on a loaded machine (the
    // browser, the service and another test file on two cores) every reading of a stretch can be
    // skipped as late. The page is under test here, not the lateness rule.
    READING_MAX_LATE_S: '59',
    // A file's pages share one address and one bucket: at the default 20-request burst, page loads
    // and the page's own reads spent it by a file's later tests whenever they ran close together
    // (a goto answered 429, its page never drawn). The limiter's own test sets its burst itself.
    RATE_LIMIT_BURST: '100000',
    RATE_LIMIT_PER_SEC: '100000',
  }
}
