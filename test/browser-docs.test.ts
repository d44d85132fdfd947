// The API reference's try-it in a real headless Chromium, against an api process on a seeded store
// (no engine: nothing changes unless the test writes it). The OpenAPI document's examples were
// recorded on another deployment: try-it must send only what the user asked for, so an example that
// would change the answer (a validator, a resume point, a date range) or name another deployment's
// contest is shown, not pre-filled.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Locator, Page, Request } from 'playwright-core'
import { MINUTE_MS, settleContest } from '../src/domain/contest.ts'
import recorded from '../src/http/openapi-examples.json' with { type: 'json' }
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { makeContest, makeSignal, quarterHourOf } from './support/contest-fixtures.ts'
import { launchChromium, offlineContext } from './support/dashboard-browser.ts'
import { freePort } from './support/ports.ts'
import { REPO_ROOT, runCli, type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'

const SERIES = 'KXBTC15M'
const SHOTS = path.join(REPO_ROOT, 'test-output/screenshots')

describe('the API reference’s try-it', () => {
  const tmp = tempDir()
  let service: ServiceProcess
  let base: string
  let key: string
  let browser: Browser
  let context: BrowserContext
  let page: Page
  const external: string[] = []
  const settled = makeContest({ series: SERIES, opensAt: quarterHourOf(Date.now() - 60 * MINUTE_MS) })

  before(async () => {
    const file = path.join(tmp.dir, 'cs.db')
    const store = createSqliteStore(file)
    await store.migrate()
    await store.importHistory([
      settleContest(
        { ...settled, signals: [makeSignal(settled)] },
        { kind: 'settled', side: 'up', priceDollars: 97_300 },
      ),
    ])
    await store.close()
    const env = { DATABASE_URL: `sqlite:${file}`, PORT: String(await freePort()) }
    const created = await runCli(['keys', 'create', '--label', 'docs'], env)
    assert.equal(created.code, 0, created.stderr)
    key = created.stdout.trim().split('\n').at(-1)!
    service = startProcess(['api'], env)
    base = await service.url
    browser = await launchChromium()
    mkdirSync(SHOTS, { recursive: true })
    context = await offlineContext(browser, external)
    page = await context.newPage()
    await page.goto(`${base}/docs`)
    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click()
    await page.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first().fill(key)
    await page.locator('.modal-ux button.authorize').click()
    await page.locator('.modal-ux button.btn-done').click()
  })

  after(async () => {
    await browser?.close()
    await service?.kill()
    tmp.remove()
  })

  /** An operation's panel, opened. */
  async function operation(tag: string, id: string): Promise<Locator> {
    const panel = page.locator(`#operations-${tag}-${id}`)
    if ((await panel.locator('.opblock-body').count()) === 0) await panel.locator('.opblock-summary').click()
    await panel.locator('.opblock-body').waitFor()
    return panel
  }
  /** The try-it field of a parameter, by its name (Swagger UI's placeholder). */
  const field = (panel: Locator, name: string) => panel.locator(`.parameters input[placeholder="${name}"]`)
  /** Presses Execute and returns the request it sent. */
  async function execute(panel: Locator, path: string): Promise<Request> {
    const [request] = await Promise.all([
      page.waitForRequest((r) => new URL(r.url()).pathname === path),
      panel.getByRole('button', { name: 'Execute' }).click(),
    ])
    return request
  }

  it('sends no If-None-Match the user did not enter: a contest fetched by its ticker answers 200', async () => {
    const panel = await operation('contests', 'getContest')
    // another deployment's ticker would be a 404 here: the field is the user's to fill
    assert.equal(await field(panel, 'ticker').inputValue(), '')
    assert.equal(await field(panel, 'if-none-match').inputValue(), '')
    await field(panel, 'ticker').fill(settled.ticker)
    const request = await execute(panel, `/v1/contests/${settled.ticker}`)
    assert.equal(request.headers()['if-none-match'], undefined)
    assert.equal((await request.response())?.status(), 200)
    // the recorded examples stay in sight, as text
    const text = (await panel.locator('.parameters').textContent()) ?? ''
    assert.ok(text.includes(recorded.parameters.ticker), text)
    assert.ok(text.includes(recorded.contests.etag), text)
    await panel.screenshot({ path: path.join(SHOTS, 'docs-try-it-ticker.png') })
  })

  it('lists this deployment’s settled contests, not an empty page of the recording’s dates', async () => {
    const panel = await operation('contests', 'listSettledContests')
    const request = await execute(panel, '/v1/contests')
    const url = new URL(request.url())
    assert.equal(url.searchParams.get('series'), SERIES)
    assert.equal(url.searchParams.has('since'), false, url.search)
    assert.equal(url.searchParams.has('before'), false, url.search)
    assert.equal(request.headers()['if-none-match'], undefined)
    const response = (await request.response())!
    assert.equal(response.status(), 200)
    const body = (await response.json()) as { contests: { ticker: string }[] }
    assert.deepEqual(
      body.contests.map((c) => c.ticker),
      [settled.ticker],
    )
  })

  it('opens the stream from now, not resumed after another deployment’s event id', async () => {
    // the stream never ends: the test answers it, once it has seen what was asked
    await page.route('**/v1/stream/contests**', (route) =>
      route.fulfill({
        status: 200,
        headers: { 'Content-Type': 'text/event-stream' },
        body: 'retry: 3000\n\n',
      }),
    )
    const panel = await operation('stream', 'streamContests')
    assert.equal(await field(panel, 'last-event-id').inputValue(), '')
    assert.equal(await field(panel, 'last_event_id').inputValue(), '')
    const request = await execute(panel, '/v1/stream/contests')
    assert.equal(request.headers()['last-event-id'], undefined)
    assert.equal(new URL(request.url()).searchParams.has('last_event_id'), false, request.url())
    const text = (await panel.locator('.parameters').textContent()) ?? ''
    assert.ok(text.includes(recorded.stream.lastEventId), text)
  })

  it('shows a 500 as the internal-error problem the service sends, not a 404 body', async () => {
    const panel = await operation('contests', 'getActiveContest')
    const row = panel.locator('.responses-inner tr.response[data-code="500"]')
    const example = (await row.locator('.example, .microlight, pre').first().textContent()) ?? ''
    assert.match(example, /"status": 500/)
    assert.match(example, /problems\/internal-error/)
    await row.screenshot({ path: path.join(SHOTS, 'docs-500.png') })
  })

  it('made no request outside this server', () => {
    assert.deepEqual(external, [])
  })
})
