// The example clients in examples/, each run as an integrator would run it against the real service
// (the CLI with SIM_SPEED so minutes pass in seconds), asserting what it printed.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { freePort } from './support/ports.ts'
import { childEnv, REPO_ROOT, type ServiceProcess, tempDir } from './support/service-process.ts'
import { type SimService, startSimService } from './support/sim-service.ts'
import { waitFor } from './support/wait.ts'

type Example = { child: ChildProcess; output(): string; exited: Promise<number | null> }

/** Starts an example (a .ts file run by this Node, or a shell script) with the given environment. */
function runExample(file: string, env: Record<string, string>): Example {
  const full = path.join(REPO_ROOT, 'examples', file)
  const [command, args] = file.endsWith('.sh') ? ['bash', [full]] : [process.execPath, [full]]
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d
  })
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    out += d
  })
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  return { child, output: () => out, exited }
}

/** Every service started here, so none outlives the file whatever fails. */
const started: ServiceProcess[] = []
after(async () => {
  await Promise.all(started.map((s) => s.kill('SIGTERM')))
})

async function startService(env: Record<string, string>, firstStart = true): Promise<SimService> {
  const world = await startSimService(env, !firstStart)
  started.push(world.service)
  return world
}

describe('examples/curl-walkthrough.sh', () => {
  const tmp = tempDir()
  let world: Awaited<ReturnType<typeof startService>>
  before(async () => {
    world = await startService({
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: '0',
      SIM_BACKFILL_DAYS: '1',
    })
  })
  after(async () => {
    await world.service.kill('SIGTERM')
    tmp.remove()
  })

  // curl and jq are there: the test run's prerequisite step makes sure of them
  it('walks through health, the live contest, history pages, an error and the stream', async () => {
    const run = runExample('curl-walkthrough.sh', { BASE: world.url, KEY: world.key, STREAM_SECONDS: '3' })
    assert.equal(await run.exited, 0, run.output())
    const out = run.output()
    assert.match(out, /^\{"status":"ok","version":"1\.0\.0","checks":\{"store":"ok","engine":"ok"\}\}$/m)
    assert.match(out, /^KXBTC15M-\d{2}[A-Z]{3}\d{6}-\d{2} live strike [\d.]+ until \S+Z, \d+ signals$/m)
    assert.match(out, /^\S+Z KXBTC15M-\S+ settled (up|down|void) \d+\/\d+ wins$/m)
    assert.match(out, /^400 application\/problem\+json(;.*)?$/m)
    assert.match(out, /^invalid-parameter: limit must be/m)
    assert.match(out, /^retry: 3000$/m)
    assert.match(out, /^event: contest\.opened$/m)
    // two pages of 3: the second page's repeated first row is dropped
    const history = out.split('## settled history')[1]!.split('## an error')[0]!
    const rows = history.match(/^\S+Z KXBTC15M-\S+/gm)!
    assert.equal(rows.length, 6)
    assert.equal(new Set(rows).size, 6)
  })
})

describe('examples/poller.ts', () => {
  const tmp = tempDir()
  let world: Awaited<ReturnType<typeof startService>>
  before(async () => {
    // A small bucket (3, refilled at 5/s), so paging 10 at a time through a day meets 429s.
    world = await startService({
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: '0',
      SIM_BACKFILL_DAYS: '1',
      RATE_LIMIT_BURST: '3',
      RATE_LIMIT_PER_SEC: '5',
    })
  })
  after(async () => {
    await world.service.kill('SIGTERM')
    tmp.remove()
  })

  it('pages through the whole history through 429s, then prints new signals of the live contest', async () => {
    const run = runExample('poller.ts', {
      BASE: world.url,
      KEY: world.key,
      PAGE_SIZE: '10',
      POLL_S: '1.5',
      POLL_ROUNDS: '4',
    })
    assert.equal(await run.exited, 0, run.output())
    const out = run.output()
    assert.match(out, /^rate limited \(429\): waiting [\d.]+ s \(Retry-After 1 s, attempt 1\)$/m)
    const summary = /^history: (\d+) contests, (\d+) distinct, (\d+) signals, .* (\d+) rate-limited$/m.exec(
      out,
    )
    assert.ok(summary, out)
    const [, contests, distinct, , limited] = summary.map(Number)
    // a day of quarter hours: 96, give or take the one settling as the run starts
    assert.ok(contests! >= 95 && contests! <= 97, `${contests} contests`)
    assert.equal(distinct, contests)
    assert.ok(limited! >= 1)
    // a virtual minute passes every wall second: the live contest gains signals between polls
    assert.match(
      out,
      /^new signal: KXBTC15M-\S+ \S+Z (up|down) confidence [\d.]+ entry [\d.]+¢ edge -?[\d.]+¢$/m,
    )
  })
})

describe('examples/stream-consumer.ts', () => {
  const tmp = tempDir()
  after(() => tmp.remove())

  it('retries a 429, then survives a server restart by resuming with Last-Event-ID: no gap, no duplicate', async () => {
    const port = String(await freePort())
    const env = {
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: port,
      SIM_BACKFILL_DAYS: '0',
      RATE_LIMIT_BURST: '2',
      // a token each 10 s while the consumer meets its 429, so no token comes back between the
      // drain below and its first attempt (its start alone took over 2 s on a loaded machine)
      RATE_LIMIT_PER_SEC: '0.1',
    }
    let world = await startService(env)
    const { url, key } = world
    assert.equal(world.url, `http://127.0.0.1:${port}`)
    const drain = async () =>
      (
        await fetch(`${url}/v1/contests/active?series=KXBTC15M`, {
          headers: { Authorization: `Bearer ${key}` },
        })
      ).arrayBuffer()
    // Drain the bucket, so the consumer's first attempt is refused with 429.
    for (let i = 0; i < 2; i++) await drain()

    const consumer = runExample('stream-consumer.ts', { BASE: url, KEY: key, STOP_AFTER_S: '60' })
    try {
      const events = () =>
        consumer.output().match(/^\S+-\d+ (contest\.opened|signal\.emitted|contest\.settled) .*$/gm) ?? []
      // Keep the bucket drained until the consumer has met its 429, however long its start takes;
      // a refused request takes no token, so the drain stops costing the consumer once it waits.
      await waitFor(
        "the consumer's 429",
        async () => {
          if (/^rate limited \(429\)/m.test(consumer.output())) return true
          await drain()
          return undefined
        },
        60_000,
        20,
      )
      await waitFor(
        'a connection after the 429',
        () => (/connected \(fresh\)/.test(consumer.output()) ? true : undefined),
        20_000,
      )
      assert.match(consumer.output(), /^rate limited \(429\): retrying in [\d.]+ s$/m)
      const beforeRestart = await waitFor(
        'two live signals',
        () =>
          events().filter((e) => e.includes('signal.emitted')).length >= 2 ? events().length : undefined,
        15_000,
      )
      assert.ok(beforeRestart > 0)

      // SIGTERM the server: it ends the stream cleanly; the consumer waits and retries.
      assert.deepEqual(await world.service.kill('SIGTERM'), { code: 0, signal: null })
      await waitFor('the consumer to notice', () =>
        /stream ended|disconnected/.test(consumer.output()) ? true : undefined,
      )
      // The same SQLite file and port, as a restarted service would have.
      // the contests are read back below through this server's bucket: a token each 2 s there
      world = await startService({ ...env, RATE_LIMIT_PER_SEC: '0.5' }, false)
      const resumed = await waitFor(
        'the consumer to resume',
        () => /^connected \(resuming after (\S+)\)$/m.exec(consumer.output())?.[1],
        20_000,
      )
      const atResume = events().length
      await waitFor(
        'two events after the resume',
        () => (events().length >= atResume + 2 ? true : undefined),
        15_000,
      )

      consumer.child.kill('SIGTERM')
      assert.equal(await consumer.exited, 0)
      const out = consumer.output()
      assert.match(out, /^stopped: \d+ events, 2 connections, 0 duplicates, 1 rate-limited$/m)

      const ids = events().map((e) => e.split(' ')[0]!)
      assert.equal(new Set(ids).size, ids.length, 'no event twice')
      const seqs = ids.map((id) => Number(id.split('-')[1]))
      assert.ok(
        seqs.every((s, i) => i === 0 || s > seqs[i - 1]!),
        `ids in order: ${ids.join(' ')}`,
      )
      // The resume named the last event received before the restart.
      const beforeResume = out.split('connected (resuming')[0]!.match(/^\S+-\d+ (?=contest\.|signal\.)/gm)!
      assert.equal(resumed, beforeResume.at(-1)!.trim())

      // No gap: every signal the store holds for the contests seen, up to the last one printed, was printed.
      const printed = new Set(
        events()
          .filter((e) => e.includes('signal.emitted'))
          .map((e) => e.split(' ').slice(2, 4).join(' ')),
      )
      const last = [...printed].at(-1)!.split(' ')[1]!
      const tickers = new Set([...printed].map((p) => p.split(' ')[0]!))
      for (const ticker of tickers) {
        // This server's bucket is small (2, a token each 2 s): wait out a 429 as a client would.
        const contest = await waitFor(
          `contest ${ticker}`,
          async () => {
            const res = await fetch(`${url}/v1/contests/${ticker}`, {
              headers: { Authorization: `Bearer ${key}` },
            })
            const body = (await res.json()) as { signals: Array<{ raised_at: string }> }
            return res.status === 200 ? body : undefined
          },
          15_000,
          1000,
        )
        for (const s of contest.signals.filter((s) => s.raised_at <= last)) {
          assert.ok(
            printed.has(`${ticker} ${s.raised_at}`),
            `signal ${ticker} ${s.raised_at} was not printed`,
          )
        }
      }
    } finally {
      consumer.child.kill('SIGTERM')
      await world.service.kill('SIGTERM')
    }
  })
})
