// The dashboard when things go wrong, in a real headless Chromium against the real CLI on the
// simulator's fast clock: the service down (with the page connected, and when Connect is pressed), a
// key refused after another was accepted, and the rate limit (a long run of 429s, and the real limiter
// with a one-request burst). The page must say what it waits for and come back by itself.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { dashboardServiceEnv, launchChromium, offlineContext } from './support/dashboard-browser.ts'
import { type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { waitFor } from './support/wait.ts'

const SERIES = 'KXBTC15M'
const CONNECTED = `Connected to ${SERIES}.`
const REFUSED = 'That key was refused (401). Check it and try again.'

describe('the dashboard through outages, a refused key and the rate limit', () => {
  const tmp = tempDir()
  let env: Record<string, string>
  let service: ServiceProcess
  let base: string
  let key: string
  let browser: Browser
  let page: Page
  /** addresses outside this server the pages asked for (refused), and errors thrown in them */
  const external: string[] = []
  const pageErrors: string[] = []

  const startService = async (extra: Record<string, string> = {}) => {
    service = startProcess(['serve'], { ...env, ...extra })
    base = await service.url
  }
  /** After a test that stops the service: running again, whatever became of the test. */
  const serviceBack = async () => {
    if (service.child.exitCode !== null || service.child.signalCode !== null) await startService()
  }

  async function newPage(context: BrowserContext): Promise<Page> {
    const p = await context.newPage()
    p.on('pageerror', (err) => pageErrors.push(err.message))
    return p
  }
  async function connect(p: Page, withKey: string): Promise<void> {
    await p.fill('#key', withKey)
    await p.fill('#series', SERIES)
    await p.click('#key-form button[type=submit]')
  }
  const text = async (p: Page, selector: string) => (await p.locator(selector).textContent()) ?? ''
  // rows of data: not the line a table shows in their place ("No signals yet on this contest.")
  const rows = (p: Page, table: string) => p.locator(`#${table} tbody tr:not(.empty)`).count()
  /** The status line and the stream state, read together (one render). */
  const statusAndStream = async (p: Page) => {
    const [status, stream] = await p.locator('#status, #stream-state').allTextContents()
    return { status: status ?? '', stream: stream ?? '' }
  }
  /**
   * The countdown runs on from the service's last answer at the speed the page measured: before the
   * service goes away the page must have measured the simulator's 60× (within the 5 % its answers'
   * round trips allow; on a loaded machine it waits for a longer span to get there), not a wall pace.
   */
  const simulatorSpeedMeasured = () =>
    waitFor(
      'the page to know the service runs about 60× the wall clock',
      async () => {
        const title = (await page.locator('#live-left').getAttribute('title')) ?? ''
        const rate = Number(/runs (\d+)× the wall clock/.exec(title)?.[1])
        return rate >= 57 && rate <= 63 ? true : undefined
      },
      30_000,
    )
  /** Everything a connected page shows of a key: the live contest with signals, settled list, analysis. */
  async function fullyShown(p: Page): Promise<void> {
    await waitFor(
      'the live contest with signals, the settled list and the analysis',
      async () => {
        const ok =
          (await text(p, '#live-ticker')).startsWith(`${SERIES}-`) &&
          (await rows(p, 'live-signals')) > 0 &&
          (await rows(p, 'settled-table')) === 10 &&
          (await p.locator('#analysis[data-loaded]').count()) === 1 &&
          (await text(p, '#status')) === CONNECTED
        return ok ? true : undefined
      },
      30_000,
    )
  }

  before(async () => {
    env = await dashboardServiceEnv(tmp.dir)
    await startService()
    key = await service.bootstrapKey
    browser = await launchChromium()
    page = await newPage(await offlineContext(browser, external))
    await page.goto(`${base}/dashboard`)
    await connect(page, key)
    await fullyShown(page)
  })

  after(async () => {
    await browser?.close()
    await service?.kill()
    tmp.remove()
  })

  it('says the live stream is down while the service is, and Connected again once it is back', async () => {
    try {
      await simulatorSpeedMeasured()
      await service.kill('SIGTERM')
      // the stream ends with the service; its reconnects then find nobody listening
      await waitFor(
        'the status saying the service cannot be reached, the closed contest no longer counting down',
        async () => {
          const { status, stream } = await statusAndStream(page)
          return /^Live stream down: the service cannot be reached; retrying in \d+ s\.$/.test(status) &&
            !stream.startsWith('open') &&
            (await text(page, '#live-left')) === 'closed'
            ? true
            : undefined
        },
        30_000,
      )
      await startService()
      await waitFor(
        'the stream open again',
        async () => {
          const { status, stream } = await statusAndStream(page)
          return status === CONNECTED && stream === 'open' ? true : undefined
        },
        30_000,
      )
    } finally {
      await serviceBack()
    }
  })

  it('clears the live contest, signals, settled list and analysis of the last key when a key is refused', async () => {
    await connect(page, key)
    await fullyShown(page)
    await connect(page, `cs_${'x'.repeat(43)}`)
    await waitFor('the refusal', async () => ((await text(page, '#status')) === REFUSED ? true : undefined))
    const shown = async () => ({
      ticker: await text(page, '#live-ticker'),
      strike: await text(page, '#live-strike'),
      venue: await text(page, '#live-venue'),
      signals: await rows(page, 'live-signals'),
      settled: await rows(page, 'settled-table'),
      summary: await page.locator('#summary > *').count(),
      calibration: await rows(page, 'calibration-table'),
      grid: await rows(page, 'grid-table'),
      loaded: await page.locator('#analysis[data-loaded]').count(),
      stream: await text(page, '#stream-state'),
    })
    const empty = {
      ticker: '—',
      strike: '—',
      venue: '—',
      signals: 0,
      settled: 0,
      summary: 0,
      calibration: 0,
      grid: 0,
      loaded: 0,
      stream: 'not connected',
    }
    assert.deepEqual(await shown(), empty)
    // Order, not time: two readings the engine raised after the refusal (read with the good key)
    // would have reached a stream of the old key by now; the page must still show nothing of it.
    const seen = new Set<string>()
    const readings = async () => {
      const res = await fetch(`${base}/v1/contests/active?series=${SERIES}`, {
        headers: { Authorization: `Bearer ${key}` },
      })
      const body = (await res.json()) as { signals?: { raised_at: string }[] }
      return (body.signals ?? []).map((s) => s.raised_at)
    }
    for (const r of await readings()) seen.add(r)
    await waitFor(
      'two readings raised after the refusal',
      async () => ((await readings()).filter((r) => !seen.has(r)).length >= 2 ? true : undefined),
      30_000,
      // the test's reads count against the same address's bucket (20, refilled at 1/s)
      700,
    )
    assert.deepEqual(await shown(), empty)
    assert.equal(await text(page, '#status'), REFUSED)
  })

  it('says the service cannot be reached when Connect is pressed while it is down, and connects once it is back', async () => {
    try {
      await simulatorSpeedMeasured()
      await service.kill('SIGTERM')
      await connect(page, key)
      await waitFor('the status saying the service cannot be reached', async () =>
        /^Connecting to KXBTC15M… The service cannot be reached; retrying in \d+ s\.$/.test(
          await text(page, '#status'),
        )
          ? true
          : undefined,
      )
      await startService()
      await fullyShown(page)
      assert.equal(await text(page, '#stream-state'), 'open')
    } finally {
      await serviceBack()
    }
  })

  it('keeps retrying through a long run of 429s, saying it is rate limited and for how long', async () => {
    // The page's timers run on a clock the test moves (Playwright's fake clock): each wait on
    // Retry-After passes when the test says so. The test answers the page's API calls 429 itself.
    const limited = { rest: true, stream: false }
    const refusedPaths: string[] = []
    const context = await offlineContext(browser, external, (url) => {
      const rest = url.pathname.startsWith('/v1/contests')
      const stream = url.pathname.startsWith('/v1/stream/')
      if (!((rest && limited.rest) || (stream && limited.stream))) return undefined
      refusedPaths.push(url.pathname)
      return {
        status: 429,
        headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '2' },
        body: JSON.stringify({ title: 'Too Many Requests', status: 429, detail: 'Rate limit exceeded.' }),
      }
    })
    try {
      await context.clock.install()
      const p = await newPage(context)
      await p.goto(`${base}/dashboard`)
      await connect(p, key)
      const count = (pathname: string) => refusedPaths.filter((x) => x === pathname).length
      // Every wait is at most Retry-After (2 s) plus a backoff capped at 10 s: jumping 15 s ends it.
      const passWaitsUntil = async (what: string, done: () => Promise<boolean>) =>
        waitFor(what, async () => {
          if (await done()) return true
          await context.clock.fastForward(15_000)
          return undefined
        })

      // the first view's calls are refused again and again (more than any fixed number of attempts)
      await passWaitsUntil('eight 429s on the live contest', async () => count('/v1/contests/active') >= 8)
      assert.match(
        await text(p, '#status'),
        /^Connecting to KXBTC15M… Rate limited; retrying in \d+ s\.$/,
        'the first view says it is rate limited while it waits',
      )
      assert.equal(await text(p, '#live-ticker'), '—')

      // the calls get through; the stream is refused: it says so, in the status and its own state
      Object.assign(limited, { rest: false, stream: true })
      let shown = { status: '', stream: '' }
      await passWaitsUntil('the stream refused twice, and waiting', async () => {
        shown = await statusAndStream(p)
        return count('/v1/stream/contests') >= 2 && shown.stream.startsWith('waiting')
      })
      assert.match(shown.status, /^Live stream: rate limited; retrying in \d+ s\./)
      assert.match(shown.stream, /^waiting \(rate limited; retrying in \d+ s\)$/)

      // the first view came through: the live contest is shown — from the active call, or, when that
      // fell in the simulator's gap between two contests (a 404), from the stream once it opens (a
      // loaded run read the page in that gap)
      limited.stream = false
      await passWaitsUntil(
        'the stream open, the live contest shown and the history read',
        async () =>
          (await statusAndStream(p)).stream === 'open' &&
          (await text(p, '#live-ticker')).startsWith(`${SERIES}-`) &&
          (await p.locator('#analysis[data-loaded]').count()) === 1,
      )
      assert.equal(await text(p, '#status'), CONNECTED)
    } finally {
      await context.close()
    }
  })

  it('under the real limiter (a burst of one) says it is rate limited, then shows everything', async () => {
    // the page connected so far would share the bucket of this address: it lets go first
    await page.click('#forget')
    await service.kill('SIGTERM')
    // one token, one more every 2 s: the first view's two calls cannot both pass (Retry-After: 2)
    await startService({ RATE_LIMIT_BURST: '1', RATE_LIMIT_PER_SEC: '0.5' })
    const context = await offlineContext(browser, external)
    try {
      const p = await newPage(context)
      await p.goto(`${base}/dashboard`)
      // every text the status line takes, in order, recorded in the page as it changes
      await p.evaluate(`(() => {
        const el = document.getElementById('status')
        window.statusLog = []
        new MutationObserver(() => window.statusLog.push(el.textContent)).observe(el, {
          childList: true,
          characterData: true,
          subtree: true,
        })
      })()`)
      await connect(p, key)
      await fullyShown(p)
      const log = (await p.evaluate('window.statusLog')) as string[]
      assert.ok(
        log.some((line) => /^Connecting to KXBTC15M… Rate limited; retrying in \d+ s\.$/.test(line)),
        `the first view said it was rate limited: ${JSON.stringify(log)}`,
      )
      const limitedLines = log.filter((line) => /rate limited/i.test(line))
      assert.ok(
        limitedLines.every((line) => /rate limited; retrying in \d+ s\./i.test(line)),
        `each rate-limited status says for how long: ${JSON.stringify(limitedLines)}`,
      )
      assert.equal(
        log.filter((line) => /error|could not/i.test(line)).length,
        0,
        `no call gave up: ${JSON.stringify(log)}`,
      )
    } finally {
      await context.close()
    }
  })

  it('threw nothing in the pages and made no request outside this server', () => {
    assert.deepEqual(pageErrors, [])
    assert.deepEqual(external, [])
  })
})
