// The dashboard and the API reference in a real headless Chromium (Debian's package, driven by
// playwright-core; the test run's prerequisite step installs it), against the real CLI on the
// simulator's fast clock.
import assert from 'node:assert/strict'
import { mkdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import {
  type Contest,
  MINUTE_MS,
  type Settlement,
  type Signal,
  settleContest,
} from '../src/domain/contest.ts'
import { formatTicker } from '../src/domain/ticker.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import {
  expiryOutlastingTheRun,
  kalshiVenue,
  polymarketVenue,
  quarterHourOf,
} from './support/contest-fixtures.ts'
import { dashboardServiceEnv, launchChromium, offlineContext } from './support/dashboard-browser.ts'
import { freePort } from './support/ports.ts'
import { REPO_ROOT, runCli, type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { eventually, waitFor } from './support/wait.ts'

/**
 * Chromium with one page that must work offline: anything not served by this service is refused
 * and its address pushed onto `external`.
 */
async function openOfflinePage(external: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium()
  const page = await (await offlineContext(browser, external)).newPage()
  mkdirSync(SHOTS, { recursive: true })
  return { browser, page }
}
const SHOTS = path.join(REPO_ROOT, 'test-output/screenshots')

/** The WCAG contrast ratio of two opaque CSS colours as getComputedStyle gives them (`rgb(r, g, b)`). */
function contrast(a: string, b: string): number {
  const luminance = (css: string) => {
    const [r, g, bl] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    }) as [number, number, number]
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl
  }
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (hi + 0.05) / (lo + 0.05)
}
const SERIES = 'KXBTC15M'

describe('dashboard and API reference in a real browser', () => {
  const tmp = tempDir()
  let env: Record<string, string>
  let service: ServiceProcess
  let base: string
  let key: string
  let browser: Browser
  let page: Page
  const external: string[] = []

  const startService = async () => {
    service = startProcess(['serve'], env)
    base = await service.url
  }
  // DOM reads go through locators and attributes, so this file needs no browser types
  const liveRows = async (): Promise<string[]> =>
    page
      .locator('#live-signals tbody tr[data-raised-at]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-raised-at') ?? ''))

  before(async () => {
    env = await dashboardServiceEnv(tmp.dir)
    await startService()
    key = await service.bootstrapKey
    ;({ browser, page } = await openOfflinePage(external))
  })

  after(async () => {
    await browser?.close()
    await service?.kill()
    tmp.remove()
  })

  it('loads, takes a key and shows the live contest of the series', async () => {
    await page.goto(`${base}/dashboard`)
    await page.fill('#key', key)
    await page.click('#key-form button[type=submit]')
    // At 60× a contest lives 15 wall seconds, so the page and the API are read together and
    // compared as a pair, again until they agree: a rollover between two reads is not a failure.
    const shown = await waitFor('the live contest on the page, as the API gives it', async () => {
      const res = await fetch(`${base}/v1/contests/active?series=${SERIES}`, {
        headers: { Authorization: `Bearer ${key}` },
      })
      const active = (await res.json()) as { ticker: string; venue_refs: { event_ticker: string } }
      // one DOM read (document order) so the two lines come from the same render
      const [ticker, venue] = await page.locator('#live-ticker, #live-venue').allTextContents()
      return ticker === active.ticker ? { active, venue } : undefined
    })
    // under it, what a bot trades it by (decisions §16): the simulator presents Kalshi's market
    assert.equal(
      shown.venue,
      `Kalshi · market ${shown.active.ticker} · event ${shown.active.venue_refs.event_ticker}`,
    )
    await page.waitForSelector('#stream-state[data-state="open"]')
    assert.equal(await page.evaluate(() => sessionStorage.getItem('contest-signals.key')), key)
    assert.equal(await page.evaluate(() => localStorage.getItem('contest-signals.key')), null)
  })

  it('adds a signal from the stream within the simulator’s next minute', async () => {
    const before = await liveRows()
    // SIM_SPEED=60: a virtual minute passes every wall second. The table holds the live contest's
    // signals only, so a contest that rolls over meanwhile can leave fewer rows than before: the
    // test waits for a reading it has not seen, not for a longer table.
    await waitFor(
      'a new signal row',
      async () => ((await liveRows()).some((r) => !before.includes(r)) ? true : undefined),
      10_000,
      100,
    )
    const rows = await liveRows()
    assert.equal(new Set(rows).size, rows.length, 'one row per reading')
  })

  it('labels the raised times UTC, the zone they are shown in (Kalshi’s tickers are New York time)', async () => {
    await waitFor('a live signal row', async () => ((await liveRows()).length > 0 ? true : undefined))
    assert.equal(await page.locator('#live-signals thead th').first().textContent(), 'Raised UTC')
    // one DOM read: each row's time as shown, beside the instant it stands for
    const rows = await page
      .locator('#live-signals tbody tr[data-raised-at]')
      .evaluateAll((trs) =>
        trs.map((tr) => [tr.getAttribute('data-raised-at') ?? '', tr.firstElementChild?.textContent ?? '']),
      )
    for (const [raisedAt, shown] of rows)
      assert.equal(shown, raisedAt!.slice(11, 19), `${raisedAt} shown in UTC`)
    assert.match(
      (await page.locator('#live-closes').textContent()) ?? '',
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
    )
  })

  it('fits every column of the live signals and the settled list at phone width; a wider table says it scrolls', async () => {
    await waitFor('live signals and a full settled list', async () =>
      (await liveRows()).length >= 2 && (await page.locator('#settled-table tbody tr').count()) === 10
        ? true
        : undefined,
    )
    await page.setViewportSize({ width: 390, height: 844 })
    try {
      // What is cut or out of view, table by table (the markup is read in the page, in one go): the
      // live signals and the settled list must fit whole; any other table that must scroll sideways
      // says so above it.
      const problems = () =>
        page.locator('.scroll').evaluateAll((boxes) =>
          boxes.flatMap((box) => {
            const table = box.querySelector('table')!
            const right = box.getBoundingClientRect().right
            const cut = [...table.querySelectorAll('th, td')]
              .filter((c) => c.getBoundingClientRect().right > right + 1 || c.scrollWidth > c.clientWidth + 1)
              .map((c) => c.textContent)
            const scrolls = box.scrollWidth > box.clientWidth + 1
            if (table.id === 'live-signals' || table.id === 'settled-table')
              return scrolls || cut.length > 0 ? [`${table.id}: ${cut.join(' | ') || 'scrolls'}`] : []
            const hint = box.ownerDocument.defaultView?.getComputedStyle(box, '::before').content ?? ''
            return scrolls && !hint.includes('Scroll sideways') ? [`${table.id} scrolls with no hint`] : []
          }),
        )
      // the page marks a scrolling table after its resize settles: wait for that, not for a time
      await eventually(problems, (list) => list.length === 0, 5_000)
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 })
    }
  })

  it('survives a server restart by resuming the stream, without duplicating a row', async () => {
    const seen = await liveRows()
    await service.kill('SIGTERM')
    await page.waitForSelector('#stream-state:not([data-state="open"])')
    await startService()
    await page.waitForSelector('#stream-state[data-state="open"]')
    // readings keep coming after the resume
    await waitFor(
      'a reading raised after the restart',
      async () => ((await liveRows()).some((r) => !seen.includes(r)) ? true : undefined),
      15_000,
      100,
    )
    const rows = await liveRows()
    assert.equal(new Set(rows).size, rows.length, 'no reading shown twice after the resume')
  })

  it('shows calibration counts and totals equal to the CLI backtest of the same window', async () => {
    // freeze the history: an api-only process on the same store, so nothing settles between the
    // page's read and the command's
    await service.kill('SIGTERM')
    service = startProcess(['api'], env)
    base = await service.url
    await page.waitForSelector('#stream-state[data-state="open"]')
    const previous = await page.locator('#analysis').getAttribute('data-loaded')
    await page.selectOption('#window', String(7 * 86_400_000))
    await waitFor('the 7-day window', async () => {
      const loaded = await page.locator('#analysis').getAttribute('data-loaded')
      return loaded && loaded !== previous ? true : undefined
    })
    const since = (await page.locator('#window-range').getAttribute('data-since'))!
    const before = (await page.locator('#window-range').getAttribute('data-before'))!
    const cli = await runCli(
      ['backtest', '--series', SERIES, '--since', since, '--before', before, '--json'],
      env,
    )
    assert.equal(cli.code, 0, cli.stderr)
    const report = JSON.parse(cli.stdout) as {
      signals: number
      wins: number
      losses: number
      voids: number
      profitPerContractCents: number
      profitPerContractAfterFeeCents: number
      calibration: { from: number; to: number; signals: number; wins: number }[]
    }
    assert.ok(report.signals > 1000, `a day of history: ${report.signals} signals`)
    const rows = (await page
      .locator('#calibration-table tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')),
      )) as string[][]
    assert.deepEqual(
      rows.map(([bucket, count, wins]) => [bucket, Number(count), Number(wins)]),
      report.calibration.map((b) => [`${b.from}–${b.to}`, b.signals, b.wins]),
    )
    const fact = async (name: string) => Number(await page.locator(`[data-fact="${name}"]`).textContent())
    assert.deepEqual(
      [await fact('signals'), await fact('wins'), await fact('losses'), await fact('voids')],
      [report.signals, report.wins, report.losses, report.voids],
    )
    // the fee switch: profit per contract before, then after Kalshi's taker fee, as the CLI says
    const profit = () => page.locator('[data-fact="profit"]').textContent()
    assert.equal(Number(await profit()), Number(report.profitPerContractCents.toFixed(2)))
    await page.locator('#after-fee').check()
    await waitFor('the profit after the fee', async () =>
      Number(await profit()) === Number(report.profitPerContractAfterFeeCents.toFixed(2)) ? true : undefined,
    )
  })

  it('renders the API reference offline, and its try-it call answers 200 with a key', async () => {
    // the whole service again (the test before left an api alone on the store): without an engine no
    // contest opens, and the one left live is expired by the clock once its window passes
    await service.kill('SIGTERM')
    await startService()
    const docs = await (await offlineContext(browser, external)).newPage()
    await docs.goto(`${base}/docs`)
    await docs
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click()
    await docs.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first().fill(key)
    await docs.locator('.modal-ux button.authorize').click()
    await docs.locator('.modal-ux button.btn-done').click()
    await docs.locator('#operations-contests-getActiveContest .opblock-summary').click()
    // try-it is on from the start (tryItOutEnabled): no "Try it out" button to press
    await docs.locator('#operations-contests-getActiveContest input[placeholder="series"]').fill(SERIES)
    const execute = async () =>
      (
        await Promise.all([
          docs.waitForResponse((r) => r.url().includes('/v1/contests/active')),
          docs.getByRole('button', { name: 'Execute' }).click(),
        ])
      )[0]
    // at 60× a quarter hour passes every 15 s: between a window's close and the engine's next tick
    // opening the next (up to 245 ms here, READING_MAX_LATE_S 59) no contest is live and the answer
    // is a true 404, so ask again while it lasts
    let response = await execute()
    for (let tries = 1; response.status() === 404 && tries < 20; tries++) response = await execute()
    assert.equal(response.status(), 200)
    assert.equal(response.request().headers().authorization, `Bearer ${key}`)
    await docs.screenshot({ path: path.join(SHOTS, 'docs.png') })
    await docs.context().close()
  })

  it('is readable in light, in dark and at phone width (screenshots)', async () => {
    // the try-it test before restarts the service: the pictures show the page back on its stream
    await page.waitForSelector('#stream-state[data-state="open"]')
    await page.waitForSelector('#analysis[data-loaded]')
    for (const theme of ['light', 'dark'] as const) {
      await page.selectOption('#theme', theme)
      await page.screenshot({ path: path.join(SHOTS, `dashboard-${theme}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: 390, height: 844 })
    await page.selectOption('#theme', 'light')
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-phone.png'), fullPage: true })
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - window.innerWidth',
    )) as number
    assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow}px at phone width`)
    for (const name of ['dashboard-light', 'dashboard-dark', 'dashboard-phone', 'docs']) {
      assert.ok(statSync(path.join(SHOTS, `${name}.png`)).size > 10_000)
    }
  })

  it('is usable from the keyboard: the key form and the filters take focus in order', async () => {
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.goto(`${base}/dashboard`)
    const order: string[] = []
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab')
      order.push(
        (await page.evaluate(
          "document.activeElement?.id || document.activeElement?.tagName || ''",
        )) as string,
      )
    }
    assert.deepEqual(order.slice(0, 5), ['A', 'key', 'series', 'BUTTON', 'forget'])
  })

  it('counts no time left until it knows the pace of the service’s clock, and never more than the window', async () => {
    const context = await offlineContext(browser, external)
    try {
      const p = await context.newPage()
      // the first health answer passes, the next are held: the pace stays unmeasured
      let healthAnswers = 0
      let holding = true
      const held: Array<() => Promise<void>> = []
      await p.route(
        (url) => url.pathname === '/v1/health',
        async (route) => {
          if (holding && healthAnswers++ > 0) held.push(() => route.continue())
          else await route.continue()
        },
      )
      await p.goto(`${base}/dashboard`)
      await p.fill('#key', key)
      await p.click('#key-form button[type=submit]')
      await waitFor('the live contest shown', async () =>
        ((await p.locator('#live-ticker').textContent()) ?? '').startsWith(SERIES) ? true : undefined,
      )
      await waitFor('a health ask held', async () => (held.length > 0 ? true : undefined))
      assert.equal(await p.locator('#live-left').textContent(), '…')
      assert.match((await p.locator('#live-left').getAttribute('title')) ?? '', /^Measuring the pace/)
      holding = false
      for (const go of held.splice(0)) await go()
      const left = await waitFor(
        'a countdown',
        async () => {
          const shown = (await p.locator('#live-left').textContent()) ?? ''
          return /^\d+:\d\d$/.test(shown) ? shown : undefined
        },
        30_000,
      )
      const [m, sec] = left.split(':').map(Number) as [number, number]
      assert.ok(m * 60 + sec <= 15 * 60, `${left} left on a 15-minute contest`)
    } finally {
      await context.close()
    }
  })

  it('shows the plot’s series controls only with a plot', async () => {
    const context = await offlineContext(browser, external)
    try {
      const p = await context.newPage()
      await p.goto(`${base}/dashboard`)
      assert.equal(await p.locator('#chart-series').isVisible(), false, 'no key, no plot, no controls')
      await p.fill('#key', 'cs_not-a-key-of-this-service')
      await p.click('#key-form button[type=submit]')
      await waitFor('the refusal', async () =>
        ((await p.locator('#status').textContent()) ?? '').includes('refused') ? true : undefined,
      )
      assert.equal(await p.locator('#chart-series').isVisible(), false, 'a refused key: no controls')
      await p.fill('#key', key)
      await p.click('#key-form button[type=submit]')
      await p.waitForSelector('#analysis[data-loaded]')
      await waitFor('the controls beside the plot', async () =>
        (await p.locator('#chart-series').isVisible()) ? true : undefined,
      )
    } finally {
      await context.close()
    }
  })

  it('says a series with no contest at all may be misnamed', async () => {
    const context = await offlineContext(browser, external)
    try {
      const p = await context.newPage()
      await p.goto(`${base}/dashboard`)
      await p.fill('#key', key)
      await p.fill('#series', 'NOPE')
      await p.click('#key-form button[type=submit]')
      const said = await waitFor('the settled list’s line', async () => {
        const text = ((await p.locator('#settled-table tbody').textContent()) ?? '').trim()
        return text === '' ? undefined : text
      })
      assert.equal(
        said,
        'No contests of NOPE at all: is the series name right? (SERIES on the service names those it follows.)',
      )
    } finally {
      await context.close()
    }
  })

  it('keeps text on the accent and the focused skip link at 4.5:1 or more in every theme (WCAG AA)', async () => {
    const context = await offlineContext(browser, external)
    try {
      const p = await context.newPage()
      await p.goto(`${base}/dashboard`)
      for (const system of ['light', 'dark'] as const)
        for (const theme of ['auto', 'light', 'dark']) {
          await p.emulateMedia({ colorScheme: system })
          await p.selectOption('#theme', theme)
          await p.focus('.skip')
          const pairs = (await p.evaluate(`[
            ['#key-form button[type=submit]', document.querySelector('#key-form button[type=submit]')],
            ['.skip', document.querySelector('.skip')],
          ].map(([name, el]) => [name, getComputedStyle(el).color, getComputedStyle(el).backgroundColor])`)) as Array<
            [string, string, string]
          >
          for (const [name, fg, bg] of pairs) {
            const ratio = contrast(fg, bg)
            assert.ok(
              ratio >= 4.5,
              `${name} in theme ${theme} on a ${system} system: ${fg} on ${bg} is ${ratio.toFixed(2)}:1`,
            )
          }
        }
      await p.emulateMedia({ colorScheme: 'light' })
    } finally {
      await context.close()
    }
  })

  it('made no request outside this server', () => {
    assert.deepEqual(external, [])
  })
})

// decisions §14: the same quarter hour on Kalshi and on Polymarket, side by side, from a store seeded
// with contests of both series (the engine plays no part: an api process serves what is stored)
describe('the dashboard with two venues', () => {
  const tmp = tempDir()
  const file = path.join(tmp.dir, 'cs.db')
  const QUARTER = 15 * MINUTE_MS
  const KALSHI = 'KXBTC15M'
  const POLY = 'btc-updown-15m'
  // venue facts §3.1.2: one window, two tickers that share nothing but the instants
  const SEPT = Date.parse('2026-09-25T19:00:00Z')
  // the quarter hour in play; its contests' windows outlast the file (a loaded CI run crossed 22:45
  // and the live window was gone)
  const live = quarterHourOf(Date.now())
  const LIVE_WINDOW = expiryOutlastingTheRun(live) - live
  const kalshiTicker = (opensAt: number) => formatTicker(KALSHI, opensAt + QUARTER)
  const polyTicker = (opensAt: number) => `${POLY}-${opensAt / 1000}`
  let service: ServiceProcess
  let browser: Browser
  let page: Page
  let key: string
  const external: string[] = []

  const contest = (
    series: string,
    ticker: string,
    opensAt: number,
    strike: number | null,
    window = QUARTER,
  ): Contest => ({
    ticker,
    series,
    state: 'live',
    opensAt,
    expiresAt: opensAt + window,
    strikePriceDollars: strike,
    settledSide: null,
    settledPriceDollars: null,
    voided: false,
    venue: series === POLY ? polymarketVenue(ticker) : kalshiVenue(ticker),
    signals: [],
  })
  const reading = (
    c: Contest,
    minute: number,
    side: 'up' | 'down',
    confidence: number,
    ask: number,
  ): Signal => ({
    ticker: c.ticker,
    minute,
    raisedAt: c.opensAt + minute * MINUTE_MS + 180,
    side,
    confidence,
    entryPriceCents: ask,
    edgeCents: Math.round((confidence - ask) * 100) / 100,
    outcome: 'pending',
    modelVersion: 'settle-mean-t-2.test',
  })
  const settled = (c: Contest, signals: Signal[], settlement: Settlement): Contest =>
    settleContest({ ...c, signals }, settlement)
  const card = (opensAt: number) =>
    page.locator(
      `#venue-windows .window[data-opens-at="${new Date(opensAt).toISOString().replace('.000Z', 'Z')}"]`,
    )
  const fact = (opensAt: number, series: string, name: string) =>
    card(opensAt).locator(`.venue-col[data-series="${series}"] [data-fact="${name}"]`).textContent()

  before(async () => {
    assert.equal(kalshiTicker(SEPT), 'KXBTC15M-26SEP251515-15')
    assert.equal(polyTicker(SEPT), 'btc-updown-15m-1790362800')
    const store = createSqliteStore(file)
    await store.migrate()
    const history: Contest[] = []
    for (const [opensAt, kalshiSide, polySide] of [
      [SEPT, 'up', 'up'],
      [live - 2 * QUARTER, 'down', 'down'],
      [live - QUARTER, 'up', 'down'],
    ] as const) {
      const k = contest(KALSHI, kalshiTicker(opensAt), opensAt, 109_250.12)
      const p = contest(POLY, polyTicker(opensAt), opensAt, 109_251.3)
      history.push(
        settled(k, [reading(k, 13, 'up', 71.25, 64), reading(k, 14, kalshiSide, 88.4, 83)], {
          kind: 'settled',
          side: kalshiSide,
          // settlements on the right side of their strikes (Kalshi's 109,250.12, Polymarket's 109,251.30)
          priceDollars: kalshiSide === 'up' ? 109_301.55 : 109_198.4,
        }),
        settled(p, [reading(p, 13, 'up', 70.1, 62), reading(p, 14, polySide, 86.9, 84)], {
          kind: 'settled',
          side: polySide,
          priceDollars: polySide === 'up' ? 109_300.02 : 109_248.9,
        }),
      )
    }
    // a window only Kalshi listed
    const lone = contest(KALSHI, kalshiTicker(live - 3 * QUARTER), live - 3 * QUARTER, 109_120)
    history.push(
      settled(lone, [reading(lone, 14, 'down', 77, 70)], {
        kind: 'settled',
        side: 'down',
        priceDollars: 109_050,
      }),
    )
    await store.importHistory(history)
    // the live quarter hour: Kalshi with its strike, Polymarket before it publishes its price to beat
    const k = contest(KALSHI, kalshiTicker(live), live, 109_400.5, LIVE_WINDOW)
    const p = contest(POLY, polyTicker(live), live, null, LIVE_WINDOW)
    await store.openContest(k)
    await store.openContest(p)
    await store.addSignal(reading(k, 1, 'up', 58.3, 52))
    await store.addSignal(reading(p, 1, 'down', 55.05, 49))
    await store.close()

    const env = { DATABASE_URL: `sqlite:${file}`, PORT: String(await freePort()) }
    const created = await runCli(['keys', 'create', '--label', 'venues'], env)
    assert.equal(created.code, 0, created.stderr)
    key = created.stdout.trim().split('\n').at(-1)!
    service = startProcess(['api'], env)
    ;({ browser, page } = await openOfflinePage(external))
    await page.goto(`${await service.url}/dashboard`)
    await page.fill('#key', key)
    await page.fill('#series', `${KALSHI},${POLY}`)
    await page.click('#key-form button[type=submit]')
    await page.waitForSelector('#venues:not([hidden]) .window')
  })

  after(async () => {
    await browser?.close()
    await service?.kill()
    tmp.remove()
  })

  it('pairs the contests of one quarter hour by their window, never by ticker', async () => {
    const windows = await page
      .locator('#venue-windows .window')
      .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-opens-at')))
    const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')
    assert.deepEqual(windows, [live, live - QUARTER, live - 2 * QUARTER, live - 3 * QUARTER, SEPT].map(iso))
    assert.equal(await fact(SEPT, KALSHI, 'ticker'), 'KXBTC15M-26SEP251515-15')
    assert.equal(await fact(SEPT, POLY, 'ticker'), 'btc-updown-15m-1790362800')
    assert.equal(await card(SEPT).locator('h3').textContent(), '2026-09-25 19:00–19:15 UTC')
    // a window one venue did not list says so, in its own column
    assert.equal(
      await card(live - 3 * QUARTER)
        .locator(`.venue-col[data-series="${POLY}"]`)
        .textContent(),
      `Polymarket ${POLY}not listed on this venue`,
    )
  })

  it('shows each venue’s strike (or that it is not yet published), reading, ask and settlement', async () => {
    assert.equal(await fact(live, KALSHI, 'strike'), '$109,400.50')
    assert.equal(await fact(live, POLY, 'strike'), 'not yet published')
    assert.equal(await fact(live, KALSHI, 'reading'), 'up · 58.30')
    assert.equal(await fact(live, POLY, 'reading'), 'down · 55.05')
    const poly = polymarketVenue(polyTicker(live))
    assert.ok(poly.name === 'polymarket' && poly.refs)
    assert.equal(
      await fact(live, POLY, 'venue'),
      `Polymarket · condition ${poly.refs.conditionId} · Up token ${poly.refs.upTokenId} · Down token ${poly.refs.downTokenId}`,
    )
    assert.equal(
      await fact(live, KALSHI, 'venue'),
      `Kalshi · market ${kalshiTicker(live)} · event ${kalshiTicker(live).replace(/-[^-]*$/, '')}`,
    )
    assert.equal(await fact(live, KALSHI, 'ask'), '52¢')
    assert.equal(await fact(live, POLY, 'ask'), '49¢')
    assert.equal(await fact(live, POLY, 'result'), 'live')
    // the same window settled differently on the two venues (their oracles differ by a few dollars)
    assert.equal(await fact(live - QUARTER, KALSHI, 'result'), 'up at $109,301.55')
    assert.equal(await fact(live - QUARTER, POLY, 'result'), 'down at $109,248.90')
    assert.equal(await fact(live - QUARTER, POLY, 'reading'), 'down · 86.90')
  })

  it('is readable side by side, in light and dark, and at phone width (screenshots)', async () => {
    for (const theme of ['light', 'dark'] as const) {
      await page.selectOption('#theme', theme)
      await page.locator('#venues').screenshot({ path: path.join(SHOTS, `dashboard-venues-${theme}.png`) })
    }
    await page.selectOption('#theme', 'light')
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-venues-page.png'), fullPage: true })
    await page.setViewportSize({ width: 390, height: 844 })
    await page.locator('#venues').screenshot({ path: path.join(SHOTS, 'dashboard-venues-phone.png') })
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - window.innerWidth',
    )) as number
    assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow}px at phone width`)
  })

  it('follows each venue’s own stream: a new reading and the settlement of one venue only', async () => {
    await page.waitForSelector('#stream-state[data-state="open"]')
    await page.waitForSelector('#venues[data-streams="open"]')
    const writer = createSqliteStore(file)
    try {
      const p = contest(POLY, polyTicker(live), live, null, LIVE_WINDOW)
      await writer.addSignal(reading(p, 2, 'up', 61.4, 57.5))
      await waitFor('the Polymarket reading from the stream', async () =>
        (await fact(live, POLY, 'reading')) === 'up · 61.40' ? true : undefined,
      )
      assert.equal(await fact(live, POLY, 'ask'), '57.5¢')
      assert.equal(await fact(live, KALSHI, 'reading'), 'up · 58.30', 'the other venue is untouched')
      await writer.expireContest(p.ticker)
      await writer.settleContest(p.ticker, { kind: 'settled', side: 'up', priceDollars: 109_402.75 })
      await waitFor('the Polymarket settlement from the stream', async () =>
        (await fact(live, POLY, 'result')) === 'up at $109,402.75' ? true : undefined,
      )
      assert.equal(await fact(live, KALSHI, 'result'), 'live')
    } finally {
      await writer.close()
    }
  })

  it('made no request outside this server', () => {
    assert.deepEqual(external, [])
  })
})
