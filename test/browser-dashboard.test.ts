// The dashboard and the API reference in a real headless Chromium (Debian's package, driven by
// playwright-core; the test run's prerequisite step installs it), against the real CLI on the
// simulator's fast clock.
import assert from 'node:assert/strict'
import { mkdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Browser, chromium, type Page } from 'playwright-core'
import { deadPort } from './support/feed-env.ts'
import {
  bootstrapKeyFrom,
  REPO_ROOT,
  runCli,
  type ServiceProcess,
  startProcess,
  tempDir,
} from './support/service-process.ts'
import { OFF_PAUSE_START } from './support/timeline.ts'
import { waitFor } from './support/wait.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const SHOTS = path.join(REPO_ROOT, 'test-output/screenshots')
const SERIES = 'KXBTC15M'

describe('dashboard and API reference in a real browser', () => {
  const tmp = tempDir()
  let port: number
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
      .locator('#live-signals tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-raised-at') ?? ''))

  before(async () => {
    port = await deadPort()
    env = {
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: String(port),
      SIM_SPEED: '60',
      SIM_START: OFF_PAUSE_START,
      SIM_SEED: '17',
      SIM_BACKFILL_DAYS: '1',
    }
    await startService()
    key = await waitFor('the bootstrap key', () => bootstrapKeyFrom(service.stdout()) ?? undefined)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    // the pages must work offline: anything not served by this service is refused and remembered
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url())
      if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue()
      external.push(url.href)
      return route.abort()
    })
    page = await context.newPage()
    mkdirSync(SHOTS, { recursive: true })
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
    const res = await fetch(`${base}/v1/contests/active?series=${SERIES}`, {
      headers: { Authorization: `Bearer ${key}` },
    })
    const active = (await res.json()) as { ticker: string }
    await waitFor('the live ticker on the page', async () =>
      (await page.locator('#live-ticker').textContent()) === active.ticker ? true : undefined,
    )
    await page.waitForSelector('#stream-state[data-state="open"]')
    assert.equal(await page.evaluate(() => sessionStorage.getItem('contest-signals.key')), key)
    assert.equal(await page.evaluate(() => localStorage.getItem('contest-signals.key')), null)
  })

  it('adds a signal from the stream within the simulator’s next minute', async () => {
    const before = await liveRows()
    // SIM_SPEED=60: a virtual minute passes every wall second
    await waitFor(
      'a new signal row',
      async () => ((await liveRows()).length > before.length ? true : undefined),
      10_000,
      100,
    )
    const rows = await liveRows()
    assert.equal(new Set(rows).size, rows.length, 'one row per reading')
  })

  it('survives a server restart by resuming the stream, without duplicating a row', async () => {
    const seen = await liveRows()
    await service.kill('SIGTERM')
    await page.waitForSelector('#stream-state:not([data-state="open"])')
    await startService()
    await page.waitForSelector('#stream-state[data-state="open"]', { timeout: 15_000 })
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
    await page.waitForSelector('#stream-state[data-state="open"]', { timeout: 15_000 })
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
    const docs = await browser.newPage()
    await docs.route('**/*', (route) => {
      const url = new URL(route.request().url())
      if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue()
      external.push(url.href)
      return route.abort()
    })
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
    const [response] = await Promise.all([
      docs.waitForResponse((r) => r.url().includes('/v1/contests/active')),
      docs.getByRole('button', { name: 'Execute' }).click(),
    ])
    assert.equal(response.status(), 200)
    assert.equal(response.request().headers().authorization, `Bearer ${key}`)
    await docs.screenshot({ path: path.join(SHOTS, 'docs.png') })
    await docs.close()
  })

  it('is readable in light, in dark and at phone width (screenshots)', async () => {
    await page.waitForSelector('#analysis[data-loaded]', { timeout: 15_000 })
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

  it('made no request outside this server', () => {
    assert.deepEqual(external, [])
  })
})
