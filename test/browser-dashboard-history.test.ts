// The dashboard on a seeded store, in a real headless Chromium against an api process (no engine:
// nothing changes unless the test writes it): the history window, the service's health, the settled
// list and the live contest in their edge cases, the venue columns, and the key kept out of URLs. A
// history read the test holds stands for a slow or rate-limited one; the health answer the test gives
// stands for a store the service cannot reach.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page, Route } from 'playwright-core'
import { type Contest, MINUTE_MS, settleContest } from '../src/domain/contest.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { expiryOutlastingTheRun, makeContest, makeSignal, quarterHourOf } from './support/contest-fixtures.ts'
import { launchChromium, offlineContext, type RouteAnswer } from './support/dashboard-browser.ts'
import { freePort } from './support/ports.ts'
import { runCli, type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { waitFor } from './support/wait.ts'

const SERIES = 'KXHIST15M'
const HOUR = 60 * MINUTE_MS
const SIX_HOURS = String(6 * HOUR)
const SEVEN_DAYS = String(7 * 24 * HOUR)
const SIM_POLY = 'btc-updown-15m'
/** A series with one live contest whose venue has not published its strike, and nothing settled. */
const FRESH = 'KXFRESH15M'

describe('the dashboard on a seeded store', () => {
  const tmp = tempDir()
  const file = path.join(tmp.dir, 'cs.db')
  let service: ServiceProcess
  let base: string
  let key: string
  let browser: Browser
  const external: string[] = []

  /** A settled contest expiring `hoursAgo` before the test began, with `wins` and `losses` graded signals. */
  const settledAgo = (hoursAgo: number, wins: number, losses: number): Contest => {
    const opensAt = quarterHourOf(Date.now() - hoursAgo * HOUR)
    const c = makeContest({ series: SERIES, ticker: `${SERIES}-H${hoursAgo}`, opensAt })
    const signals = [
      ...Array.from({ length: wins }, (_, i) => makeSignal(c, { minute: i + 1, side: 'up' })),
      ...Array.from({ length: losses }, (_, i) => makeSignal(c, { minute: wins + i + 1, side: 'down' })),
    ]
    return settleContest({ ...c, signals }, { kind: 'settled', side: 'up', priceDollars: 97_300 })
  }

  before(async () => {
    const store = createSqliteStore(file)
    await store.migrate()
    // 2 signals in the last 6 hours, 5 in the last 24, 6 in the last 7 days
    await store.importHistory([settledAgo(2, 1, 1), settledAgo(12, 2, 1), settledAgo(72, 1, 0)])
    // a Polymarket-named series the simulator serves as Kalshi markets (its every series is Kalshi-shaped)
    const twin = makeContest({
      series: SIM_POLY,
      ticker: `${SIM_POLY}-H2`,
      opensAt: quarterHourOf(Date.now() - 2 * HOUR),
    })
    await store.importHistory([
      settleContest(
        { ...twin, signals: [makeSignal(twin)] },
        { kind: 'settled', side: 'up', priceDollars: 97_300 },
      ),
    ])
    // the live quarter hour: KXHIST15M's with its strike (the last test settles it), FRESH's without
    // windows that outlast the file (a CI run crossed :45 and found no live contest)
    const live = quarterHourOf(Date.now())
    const expiresAt = expiryOutlastingTheRun(live)
    await store.openContest(
      makeContest({ series: SERIES, ticker: `${SERIES}-LIVE`, opensAt: live, expiresAt }),
    )
    await store.openContest(
      makeContest({
        series: FRESH,
        ticker: `${FRESH}-LIVE`,
        opensAt: live,
        expiresAt,
        strikePriceDollars: null,
      }),
    )
    await store.close()
    // a page load and each of its reads take a token: a burst that these tests' dozens of loads
    // in a few seconds never spend (the limiter's own behaviour is browser-dashboard-resilience's)
    const env = { DATABASE_URL: `sqlite:${file}`, PORT: String(await freePort()), RATE_LIMIT_BURST: '1000' }
    const created = await runCli(['keys', 'create', '--label', 'history'], env)
    assert.equal(created.code, 0, created.stderr)
    key = created.stdout.trim().split('\n').at(-1)!
    service = startProcess(['api'], env)
    base = await service.url
    browser = await launchChromium()
  })

  after(async () => {
    await browser?.close()
    await service?.kill()
    tmp.remove()
  })

  /** A new page of the dashboard that has sent the key and `series` (one, or several with commas). */
  async function signedIn(context: BrowserContext, series = SERIES): Promise<Page> {
    const page = await context.newPage()
    await page.goto(`${base}/dashboard`)
    await page.fill('#key', key)
    await page.fill('#series', series)
    await page.click('#key-form button[type=submit]')
    return page
  }
  async function connected(context: BrowserContext): Promise<Page> {
    const page = await signedIn(context)
    await page.waitForSelector('#analysis[data-loaded]')
    return page
  }
  const fact = async (page: Page, name: string) =>
    (await page.locator(`[data-fact="${name}"]`).textContent()) ?? ''
  /** An instant as the page writes it: `2026-11-23 17:15:00 UTC` */
  const asShown = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`
  /** The range the page names and the signal count it shows beside it, read in one go. */
  const shown = (page: Page) =>
    page.evaluate(`({
      range: document.getElementById('window-range')?.textContent ?? '',
      signals: document.querySelector('[data-fact="signals"]')?.textContent ?? null,
    })`) as Promise<{ range: string; signals: string | null }>

  /** Holds the page's history reads (the calls with `since`) until the test lets each go. */
  async function holdHistory(page: Page): Promise<{ held: Route[]; failed: string[] }> {
    const held: Route[] = []
    const failed: string[] = []
    await page.route(
      (url) => url.pathname === '/v1/contests' && url.searchParams.has('since'),
      (route) => {
        held.push(route)
      },
    )
    page.on('requestfailed', (r) => {
      if (new URL(r.url()).searchParams.has('since')) failed.push(r.url())
    })
    return { held, failed }
  }

  it('never shows one window’s numbers under another window’s range while the new one is read', async () => {
    const context = await offlineContext(browser, external)
    try {
      const page = await connected(context)
      assert.equal(await fact(page, 'signals'), '5', 'the last 24 hours')
      const { held } = await holdHistory(page)
      await page.selectOption('#window', SIX_HOURS)
      await waitFor('the 6-hour read asked for', () => (held.length === 1 ? true : undefined))
      const during = await shown(page)
      const sixHoursSince = new URL(held[0]!.request().url()).searchParams.get('since')!
      // the page may keep the 24 hours' numbers under the 24 hours' range, or show none while it
      // reads; it must not name the 6 hours above the 24 hours' count
      assert.ok(
        !(during.range.includes(asShown(sixHoursSince)) && during.signals === '5'),
        `the 24-hour count shown under the 6-hour range: ${JSON.stringify(during)}`,
      )
      // a filter changed meanwhile recomputes nothing under the wrong range either
      await page.fill('#min-confidence', '1')
      const filtered = await shown(page)
      assert.ok(
        !(filtered.range.includes(asShown(sixHoursSince)) && filtered.signals === '5'),
        `after a filter change: ${JSON.stringify(filtered)}`,
      )
      await page.fill('#min-confidence', '0')
      await held[0]!.continue()
      await waitFor('the 6-hour numbers', async () =>
        (await fact(page, 'signals')) === '2' ? true : undefined,
      )
      const after = await shown(page)
      assert.ok(after.range.includes(asShown(sixHoursSince)), `the range read: ${after.range}`)
    } finally {
      await context.close()
    }
  })

  it('stops reading a window the user has left: its call is cancelled, not retried or paged on', async () => {
    const context = await offlineContext(browser, external)
    try {
      const page = await connected(context)
      const { held, failed } = await holdHistory(page)
      await page.selectOption('#window', SIX_HOURS)
      await waitFor('the 6-hour read asked for', () => (held.length === 1 ? true : undefined))
      const left = held[0]!.request().url()
      await page.selectOption('#window', SEVEN_DAYS)
      await waitFor('the 6-hour read cancelled', () => (failed.includes(left) ? true : undefined))
      await waitFor('the 7-day read asked for', () => (held.length === 2 ? true : undefined))
      await held[1]!.continue()
      await waitFor('the 7-day numbers', async () =>
        (await fact(page, 'signals')) === '6' ? true : undefined,
      )
    } finally {
      await context.close()
    }
  })

  it('says when the service reports its store unreachable, rather than only “Connected”', async () => {
    // the health answers are the test's (an api process alone has no engine: its own says "degraded")
    const unavailable = { on: false }
    const health = (url: URL): RouteAnswer | undefined =>
      url.pathname === '/v1/health'
        ? {
            status: unavailable.on ? 503 : 200,
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              status: unavailable.on ? 'unavailable' : 'ok',
              version: '1.0.0',
              time: new Date().toISOString(),
              checks: { store: unavailable.on ? 'unavailable' : 'ok', engine: 'ok' },
            }),
          }
        : undefined
    const context = await offlineContext(browser, external, health)
    try {
      await context.clock.install()
      const page = await connected(context)
      assert.equal(await page.locator('#status').textContent(), `Connected to ${SERIES}.`)
      unavailable.on = true
      // the page asks for health every 10 s: move its clock past the next ask
      await waitFor('the status naming the store', async () => {
        const status = (await page.locator('#status').textContent()) ?? ''
        if (/store unavailable/.test(status)) return status
        await context.clock.fastForward(10_000)
        return undefined
      })
      unavailable.on = false
      await waitFor('the status back to Connected', async () => {
        if ((await page.locator('#status').textContent()) === `Connected to ${SERIES}.`) return true
        await context.clock.fastForward(10_000)
        return undefined
      })
    } finally {
      await context.close()
    }
  })

  it('heads each venue column with the venue the API names for its contests, not the one its series prefix suggests', async () => {
    const context = await offlineContext(browser, external)
    try {
      const page = await signedIn(context, `${SERIES},${SIM_POLY}`)
      const column = page.locator(`#venue-windows .venue-col[data-ticker="${SIM_POLY}-H2"]`)
      await column.waitFor()
      assert.equal(
        await column.locator('[data-fact="venue"]').textContent(),
        `Kalshi · market ${SIM_POLY}-H2 · event ${SIM_POLY}`,
      )
      assert.equal(await column.locator('h4').textContent(), `Kalshi ${SIM_POLY}`)
    } finally {
      await context.close()
    }
  })

  it('writes dollars alike in the live panel, the settled list and the side-by-side view: with thousands separators', async () => {
    const context = await offlineContext(browser, external)
    try {
      const page = await signedIn(context, `${SERIES},${SIM_POLY}`)
      await page.locator(`#venue-windows .venue-col[data-ticker="${SERIES}-LIVE"]`).waitFor()
      assert.equal(await page.locator('#live-strike').textContent(), '$97,123.45')
      assert.equal(
        await page
          .locator(`#venue-windows .venue-col[data-ticker="${SERIES}-LIVE"] [data-fact="strike"]`)
          .textContent(),
        '$97,123.45',
      )
      const prices = await page
        .locator('#settled-table tbody tr td:nth-child(3)')
        .evaluateAll((tds) => tds.map((td) => td.textContent))
      assert.deepEqual(prices, ['97,300.00', '97,300.00', '97,300.00'])
    } finally {
      await context.close()
    }
  })

  it('lets the keyboard switch the calibration plot’s series: labelled checkboxes, reached by Tab', async () => {
    const context = await offlineContext(browser, external)
    try {
      const page = await connected(context)
      const plot = page.locator('#calibration-chart canvas')
      await plot.waitFor()
      const drawn = await plot.screenshot()
      await page.focus('#after-fee')
      const reached: string[] = []
      for (let i = 0; i < 8 && !reached.at(-1)?.startsWith('checkbox realised'); i++) {
        await page.keyboard.press('Tab')
        reached.push(
          (await page.evaluate(`(() => {
            const el = document.activeElement
            const role = el?.getAttribute('role') ?? (el?.type === 'checkbox' ? 'checkbox' : el?.tagName.toLowerCase())
            const name = el?.labels?.[0]?.textContent ?? el?.getAttribute('aria-label') ?? el?.textContent ?? ''
            return role + ' ' + name.trim().toLowerCase()
          })()`)) as string,
        )
      }
      assert.ok(reached.at(-1)?.startsWith('checkbox realised'), reached.join(' | '))
      await page.keyboard.press('Space')
      await waitFor('the realised points hidden', async () =>
        Buffer.compare(await plot.screenshot(), drawn) !== 0 ? true : undefined,
      )
      await page.keyboard.press('Space')
      await waitFor('the realised points back', async () =>
        Buffer.compare(await plot.screenshot(), drawn) === 0 ? true : undefined,
      )
    } finally {
      await context.close()
    }
  })

  it('draws the calibration plot again when its width changes, not when the analysis only grows taller', async () => {
    const context = await offlineContext(browser, external)
    try {
      // the page waits 100 ms after a resize before it draws again: that wait on the test's clock
      await context.clock.install()
      const page = await connected(context)
      await context.clock.runFor(200)
      const drawn = await page.locator('#calibration-chart canvas').elementHandle()
      assert.ok(drawn)
      /** Resolves once a resize of the analysis to `box` has been seen. */
      const resized = (box: string) =>
        page.evaluate(`new Promise((resolve) => {
          const seen = new ResizeObserver(([entry]) => {
            const { width, height } = entry.contentRect
            if (${box}) { seen.disconnect(); resolve(undefined) }
          })
          seen.observe(document.getElementById('analysis'))
        })`)
      // a resize can reach the page's own observer a frame after ours: two more rendering updates
      // (a new observer reports at the next one) before the page's 100 ms are run
      const settled = async () => {
        for (let i = 0; i < 2; i++)
          await page.evaluate(`new Promise((resolve) => {
            const next = new ResizeObserver(() => { next.disconnect(); resolve(undefined) })
            next.observe(document.body)
          })`)
        await context.clock.runFor(200)
      }
      const height = (await page.evaluate(`document.getElementById('analysis').clientHeight`)) as number
      const taller = resized(`height > ${height}`)
      await page.evaluate(`document.getElementById('analysis').append(
        Object.assign(document.createElement('div'), { style: 'height: 400px' }))`)
      await taller
      await settled()
      assert.ok(await drawn.evaluate((el) => el.isConnected), 'a taller analysis keeps the plot drawn')
      const width = (await page.evaluate(`document.getElementById('analysis').clientWidth`)) as number
      const narrower = resized(`width < ${width}`)
      await page.setViewportSize({ width: 600, height: 900 })
      await narrower
      await settled()
      assert.equal(await drawn.evaluate((el) => el.isConnected), false, 'a narrower one draws it again')
      assert.ok(await page.locator('#calibration-chart canvas').isVisible())
    } finally {
      await context.close()
    }
  })

  it('says when a series has no settled contest yet, and when its live contest has no strike or signal yet', async () => {
    const context = await offlineContext(browser, external)
    try {
      const page = await signedIn(context, FRESH)
      await page.waitForSelector('#analysis[data-loaded]')
      assert.equal(await page.locator('#live-ticker').textContent(), `${FRESH}-LIVE`)
      assert.equal(await page.locator('#live-strike').textContent(), 'not yet published')
      // a contest just opened has no signal yet: the table says so rather than stand empty
      assert.equal(
        (await page.locator('#live-signals tbody').textContent())?.trim(),
        'No signals yet on this contest.',
      )
      assert.equal(
        (await page.locator('#settled-table tbody').textContent())?.trim(),
        'No settled contests yet.',
      )
      // its first reading takes the line's place
      await page.waitForSelector('#stream-state[data-state="open"]')
      const writer = createSqliteStore(file)
      try {
        const live = (await writer.getLiveContest(FRESH))!
        await writer.addSignal(makeSignal(live))
      } finally {
        await writer.close()
      }
      await page.locator('#live-signals tbody tr[data-raised-at]').waitFor()
      assert.equal(await page.locator('#live-signals tbody tr').count(), 1)
    } finally {
      await context.close()
    }
  })

  it('keeps the settled list when reading it again after a settlement fails, with the new one on top', async () => {
    const context = await offlineContext(browser, external, (url) =>
      // the settled list's own read (10 rows, no range) fails once the page has shown it
      refuseList.on && url.pathname === '/v1/contests' && url.searchParams.get('limit') === '10'
        ? { status: 500, headers: { 'Content-Type': 'application/problem+json' }, body: '{"status":500}' }
        : undefined,
    )
    const refuseList = { on: false }
    try {
      const page = await connected(context)
      await page.waitForSelector('#stream-state[data-state="open"]')
      const tickers = () =>
        page
          .locator('#settled-table tbody tr td:first-child')
          .evaluateAll((tds) => tds.map((td) => td.textContent))
      assert.deepEqual(await tickers(), [`${SERIES}-H2`, `${SERIES}-H12`, `${SERIES}-H72`])
      refuseList.on = true
      const writer = createSqliteStore(file)
      try {
        await writer.expireContest(`${SERIES}-LIVE`)
        await writer.settleContest(`${SERIES}-LIVE`, { kind: 'settled', side: 'down', priceDollars: 97_000 })
      } finally {
        await writer.close()
      }
      const shown = await waitFor('the settlement in the list', async () => {
        const now = await tickers()
        return now.includes(`${SERIES}-LIVE`) ? now : undefined
      })
      assert.deepEqual(shown, [`${SERIES}-LIVE`, `${SERIES}-H2`, `${SERIES}-H12`, `${SERIES}-H72`])
    } finally {
      await context.close()
    }
  })

  it('never puts the key in a URL, even when Enter is pressed before the page’s script has run', async () => {
    const context = await offlineContext(browser, external)
    try {
      const page = await context.newPage()
      // the script that takes the form over never arrives (a slow network, a blocked module)
      await page.route('**/dashboard/app.ts', (route) => route.abort())
      await page.goto(`${base}/dashboard`)
      await page.fill('#key', key)
      await page.locator('#key').press('Enter')
      await page.waitForLoadState('load')
      assert.ok(!page.url().includes(key), `the key in the address bar: ${page.url()}`)
      assert.ok(!decodeURIComponent(page.url()).includes(key))
    } finally {
      await context.close()
    }
  })

  it('counts a stream’s wait down in its own field as in the status line: one number on screen, not two', async () => {
    const context = await offlineContext(browser, external, (url) =>
      url.pathname === '/v1/stream/contests'
        ? {
            status: 429,
            headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '30' },
            body: JSON.stringify({ title: 'Too Many Requests', status: 429 }),
          }
        : undefined,
    )
    try {
      await context.clock.install()
      const page = await signedIn(context)
      await page.waitForSelector('#stream-state[data-state="waiting"]')
      await context.clock.runFor(5_000)
      const [status, stream] = await page.locator('#status, #stream-state').allTextContents()
      const seconds = (text = '') => /retrying in (\d+) s/.exec(text)?.[1]
      assert.ok(seconds(status), status)
      assert.equal(seconds(stream), seconds(status), `${stream} | ${status}`)
    } finally {
      await context.close()
    }
  })

  it('made no request outside this server', () => {
    assert.deepEqual(external, [])
  })
})
