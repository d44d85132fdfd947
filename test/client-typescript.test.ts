// clients/typescript as a bot author uses it: packed with `npm pack` (its prepack builds JavaScript
// and declarations), installed into a temporary project, imported from node_modules there, and run
// against the real service: the active contest with its venue references, history paging through
// 429s, a 429 surfaced once the bounded retries are spent, and the stream resumed across a restart.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import type * as ClientModule from '../clients/typescript/src/index.ts'
import type { KalshiRefs, StreamEvent, StreamStatus } from '../clients/typescript/src/index.ts'
import { installOffline, pack } from './support/packed-install.ts'
import { freePort } from './support/ports.ts'
import { REPO_ROOT, tempDir } from './support/service-process.ts'
import { type SimService, startSimService } from './support/sim-service.ts'
import { waitFor } from './support/wait.ts'

const SERIES = 'KXBTC15M'

describe('@contest-signals/client installed from its tarball, against the real service', () => {
  const tmp = tempDir('cs-client-')
  let client: typeof ClientModule
  let installed: string
  let project: string
  let world: SimService
  let port: number
  /** when the service answered first: at 60× a contest settles every 15 wall seconds after it */
  let startedAt: number
  // a small bucket (3, a token a second): paging a day 10 at a time meets 429s even when each page
  // takes a few hundred ms on a loaded machine (at 5 a second a loaded CI run paged through with none)
  const serviceEnv = () => ({
    DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
    PORT: String(port),
    RATE_LIMIT_BURST: '3',
    RATE_LIMIT_PER_SEC: '1',
  })

  before(async () => {
    project = path.join(tmp.dir, 'project')
    mkdirSync(project)
    installed = await installOffline(project, await pack(path.join(REPO_ROOT, 'clients/typescript'), tmp.dir))
    client = (await import(pathToFileURL(path.join(installed, 'dist/index.js')).href)) as typeof ClientModule
    port = await freePort()
    world = await startSimService(serviceEnv())
    startedAt = Date.now()
  })
  after(async () => {
    await world?.service.kill()
    tmp.remove()
  })

  it('installs JavaScript with declarations, and nothing else', () => {
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/generated/api-types.d.ts', 'package.json'])
      assert.ok(existsSync(path.join(installed, file)), file)
    assert.ok(!existsSync(path.join(installed, 'src')))
  })

  it('types a TypeScript project that imports it: the declarations resolve, nothing falls back to any', () => {
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['bot.ts'],
      }),
    )
    writeFileSync(
      path.join(project, 'bot.ts'),
      [
        "import { ApiError, type Contest, createClient } from '@contest-signals/client'",
        "const api = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'cs_x' })",
        'export async function orderTarget(series: string): Promise<string> {',
        '  const c: Contest = await api.activeContest(series)',
        '  const refs = c.venue_refs',
        "  if (refs !== null && 'market_ticker' in refs) return refs.market_ticker",
        "  if (refs !== null && 'up_token_id' in refs) return refs.up_token_id + ' ' + refs.down_token_id",
        '  return c.ticker',
        '}',
        'export function waitS(err: unknown): number | null {',
        '  return err instanceof ApiError ? err.retryAfterS : null',
        '}',
        'export function refusedParams(err: ApiError): string[] {',
        "  return err.problem && 'invalid_params' in err.problem ? err.problem.invalid_params.map((p) => p.name) : []",
        '}',
        '// a type that fell back to any would make these unused, and the compile fail',
        '// @ts-expect-error a ticker is a string',
        'export const wrongTicker: number = ({} as Contest).ticker',
        'export async function wrongEvent(): Promise<void> {',
        "  for await (const e of api.stream({ series: 'KXBTC15M' }))",
        "    // @ts-expect-error a signal's side is 'up' | 'down'",
        "    if (e.event === 'signal.emitted') e.data.signal.side = 'sideways'",
        '}',
      ].join('\n'),
    )
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc')
    execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' })
  })

  it('types the README’s example as written, a saved stream id passed back in included', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'clients/typescript/README.md'), 'utf8')
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    assert.ok(example, 'a ts block in the README')
    writeFileSync(
      path.join(project, 'tsconfig.readme.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { module: 'nodenext', target: 'es2022' },
        files: ['readme.mts'],
      }),
    )
    // the one outside name the example uses, as @types/node would give it
    writeFileSync(
      path.join(project, 'readme.mts'),
      `declare const process: { env: Record<string, string | undefined> }\n${example}\nexport {}\n`,
    )
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc')
    execFileSync(process.execPath, [tsc, '-p', path.join(project, 'tsconfig.readme.json')], {
      encoding: 'utf8',
    })
  })

  it('gets the active contest with the references a bot trades it by', async () => {
    const api = client.createClient({ baseUrl: world.url, apiKey: world.key })
    const active = await api.activeContest(SERIES)
    assert.equal(active.state, 'live')
    assert.equal(active.venue, 'kalshi')
    const refs = active.venue_refs as KalshiRefs
    assert.equal(refs.market_ticker, active.ticker)
    assert.ok(active.ticker.startsWith(`${refs.event_ticker}-`))
    // by its ticker, the same contest; meanwhile it only gains signals (a minute may turn) and, at 60×
    // on a loaded machine, may have closed: what a bot trades it by never changes
    const byTicker = await api.contest(active.ticker)
    const fixed = ({ ticker, window, strike_price_dollars, venue, venue_refs }: typeof active) => ({
      ticker,
      window,
      strike_price_dollars,
      venue,
      venue_refs,
    })
    assert.deepEqual(fixed(byTicker), fixed(active))
    assert.ok(['live', 'expired', 'settled'].includes(byTicker.state), byTicker.state)
    assert.deepEqual(byTicker.signals.slice(0, active.signals.length), active.signals)
  })

  it('pages through a day of history, waiting out each 429 by Retry-After', async () => {
    const waits: number[] = []
    const api = client.createClient({
      baseUrl: world.url,
      apiKey: world.key,
      onRateLimited: (info) => waits.push(info.retryAfterS ?? -1),
    })
    const tickers: string[] = []
    for await (const c of api.settledHistory({ series: SERIES, pageSize: 10 })) {
      assert.equal(c.state, 'settled')
      assert.equal((c.venue_refs as KalshiRefs).market_ticker, c.ticker)
      tickers.push(c.ticker)
    }
    // a day of quarter hours, give or take the one settling as the run starts, and those settled
    // since (a loaded machine takes a while to get here); none twice
    const since = Math.ceil((Date.now() - startedAt) / 15_000)
    assert.ok(
      tickers.length >= 95 && tickers.length <= 97 + since,
      `${tickers.length} contests, ${since} quarter hours since the start`,
    )
    assert.equal(new Set(tickers).size, tickers.length)
    assert.ok(waits.length >= 1 && waits.every((s) => s >= 1), `waits ${waits}`)
  })

  it('throws ApiError 429 with Retry-After once its bounded retries are spent', async () => {
    const api = client.createClient({ baseUrl: world.url, apiKey: world.key, maxRetries: 0 })
    // eight at once against a bucket of three: one after another, a loaded machine answered each
    // slower than the bucket refills (a second) and met no 429 in the wait. A round that meets a
    // contest boundary instead (the active contest is 404 for a tick) is asked again.
    const error = await waitFor('a 429', async () => {
      const answers = await Promise.allSettled(Array.from({ length: 8 }, () => api.activeContest(SERIES)))
      const refused = answers.find(
        (a) => a.status === 'rejected' && (a.reason as { status?: unknown }).status !== 404,
      )
      return refused?.status === 'rejected' ? (refused.reason as unknown) : undefined
    })
    assert.ok(error instanceof client.ApiError, String(error))
    assert.equal(error.status, 429)
    assert.equal(error.problem?.title, 'Too Many Requests')
    assert.ok((error.retryAfterS ?? 0) >= 1)
  })

  it('resumes the stream with Last-Event-ID after a restart: no event twice, none missed', async () => {
    const api = client.createClient({ baseUrl: world.url, apiKey: world.key })
    const statuses: StreamStatus[] = []
    const abort = new AbortController()
    const stream = api.stream({ series: SERIES, signal: abort.signal, onStatus: (s) => statuses.push(s) })
    const seen: StreamEvent[] = []
    const reading = (async () => {
      for await (const e of stream) seen.push(e)
    })()
    const signals = () => seen.filter((e) => e.event === 'signal.emitted').length
    // a failed wait would leave the stream reconnecting for ever, and with it the file's process and
    // the whole npm test (seen: 25 min, until killed)
    let lastBefore: string | null = null
    try {
      await waitFor('two signals', () => (signals() >= 2 ? true : undefined), 20_000)
      assert.equal((await world.service.kill('SIGTERM')).code, 0)
      await waitFor('the disconnect', () =>
        statuses.some((s) => s.kind === 'disconnected') ? true : undefined,
      )
      lastBefore = stream.lastEventId
      const connections = () => statuses.filter((s) => s.kind === 'connected').length
      const connectedBefore = connections()
      // the same store and port, as a restarted service has; the store keeps the key
      const restarted = await startSimService(serviceEnv(), true)
      world = { ...restarted, key: world.key }
      const atRestart = seen.length
      // the client backs off doubling from 3 s up to 30 s (stream.ts MAX_RECONNECT_WAIT_MS) while the
      // service is down, so a restart slowed by load is followed by up to 30 s before the resume
      await waitFor('the resume', () => (connections() > connectedBefore ? true : undefined), 45_000)
      await waitFor(
        'two events after the resume',
        () => (seen.length >= atRestart + 2 ? true : undefined),
        20_000,
      )
    } finally {
      abort.abort()
      await reading
    }

    const resumes = statuses.filter((s) => s.kind === 'connected')
    assert.deepEqual(resumes.at(-1), { kind: 'connected', resumedAfter: lastBefore })
    const ids = seen.map((e) => e.id!)
    assert.equal(new Set(ids).size, ids.length, 'no event twice')
    // ids are opaque to clients; the test knows their shape (epoch-seq) and checks their order
    const seqs = ids.map((id) => Number(id.split('-')[1]))
    assert.ok(
      seqs.every((s, i) => i === 0 || s > seqs[i - 1]!),
      ids.join(' '),
    )
    // none missed: every signal stored for the contests seen, up to the last one received, was received
    const received = new Set(
      seen.flatMap((e) =>
        e.event === 'signal.emitted' ? [`${e.data.signal.ticker} ${e.data.signal.raised_at}`] : [],
      ),
    )
    const last = [...received].at(-1)!.split(' ')[1]!
    const patient = client.createClient({ baseUrl: world.url, apiKey: world.key, maxRetries: 10 })
    for (const ticker of new Set([...received].map((r) => r.split(' ')[0]!)))
      for (const s of (await patient.contest(ticker)).signals)
        if (s.raised_at <= last)
          assert.ok(received.has(`${ticker} ${s.raised_at}`), `${ticker} ${s.raised_at}`)
  })
})
