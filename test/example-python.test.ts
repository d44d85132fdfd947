// examples/python/contest_signals.py, run with Debian's python3 (standard library only) against the
// real service as a bot author would run it: health, the active contest with its venue references,
// a day of history paged through 429s, then the stream, resumed with Last-Event-ID after the server
// restarts under it: every event once, none missed.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { isExecutable } from './prerequisites/programs.ts'
import { freePort } from './support/ports.ts'
import { childEnv, REPO_ROOT, tempDir } from './support/service-process.ts'
import { type SimService, startSimService } from './support/sim-service.ts'
import { waitFor } from './support/wait.ts'

// Debian's own interpreter when there is one (a PATH may put another, e.g. pyenv's, first)
const PYTHON = isExecutable('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
const SCRIPT = path.join(REPO_ROOT, 'examples/python/contest_signals.py')

function runPython(env: Record<string, string>): {
  child: ChildProcess
  output(): string
  exited: Promise<number>
} {
  const child = spawn(PYTHON, [SCRIPT], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  for (const stream of [child.stdout!, child.stderr!])
    stream.setEncoding('utf8').on('data', (d: string) => {
      out += d
    })
  return { child, output: () => out, exited: once(child, 'exit').then(([code]) => code as number) }
}

describe('examples/python/contest_signals.py', () => {
  const tmp = tempDir('cs-python-')
  let world: SimService | undefined
  after(async () => {
    await world?.service.kill()
    tmp.remove()
  })

  it('pages history through 429s, shows venue references, and resumes the stream after a restart', async () => {
    // a small bucket (3, refilled at 5 per second): paging a day 10 at a time meets 429s
    const env = {
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: String(await freePort()),
      RATE_LIMIT_BURST: '3',
      RATE_LIMIT_PER_SEC: '5',
    }
    world = await startSimService(env)
    const { url, key } = world
    const run = runPython({ BASE: url, KEY: key, PAGE_SIZE: '10', STOP_AFTER_S: '120' })
    try {
      const events = () =>
        run.output().match(/^\S+-\d+ (contest\.opened|signal\.emitted|contest\.settled) .*$/gm) ?? []
      const signals = () => events().filter((e) => e.includes(' signal.emitted '))
      await waitFor('two signals on the stream', () => (signals().length >= 2 ? true : undefined), 30_000)

      assert.equal((await world.service.kill('SIGTERM')).code, 0)
      await waitFor('the example to notice', () =>
        /^disconnected \(/m.test(run.output()) ? true : undefined,
      )
      const beforeRestart = events().at(-1)!.split(' ')[0]!
      world = { ...(await startSimService(env, true)), key }
      const resumedAfter = await waitFor(
        'the example to resume',
        () => /^connected \(resuming after (\S+)\)$/m.exec(run.output())?.[1],
        20_000,
      )
      assert.equal(resumedAfter, beforeRestart)
      const atResume = events().length
      await waitFor(
        'two events after the resume',
        () => (events().length >= atResume + 2 ? true : undefined),
        20_000,
      )
      run.child.kill('SIGTERM')
      assert.equal(await run.exited, 0, run.output())

      const out = run.output()
      assert.match(out, /^health: ok 1\.0\.0$/m)
      const active =
        /^active: (KXBTC15M-\S+) live strike [\d.]+ until \S+Z, \d+ signals, venue kalshi market_ticker=(\S+) event_ticker=(\S+)$/m.exec(
          out,
        )
      assert.ok(active, out)
      assert.equal(active[2], active[1])
      assert.ok(active[1]!.startsWith(`${active[3]}-`))
      assert.match(out, /^rate limited \(429\): waiting [\d.]+ s \(Retry-After \d+ s, attempt 1\)$/m)
      const history = /^history: (\d+) contests, (\d+) distinct, \d+ signals, \d+ wins$/m.exec(out)
      assert.ok(history, out)
      const [contests, distinct] = [Number(history[1]), Number(history[2])]
      assert.ok(contests >= 95 && contests <= 97, `${contests} contests`)
      assert.equal(distinct, contests)
      assert.match(out, /^stopped: \d+ events, 2 connections, 0 duplicates$/m)

      const ids = events().map((e) => e.split(' ')[0]!)
      assert.equal(new Set(ids).size, ids.length, 'no event twice')
      // none missed: every signal stored for the contests seen, up to the last printed, was printed
      const printed = new Set(signals().map((e) => e.split(' ').slice(2, 4).join(' ')))
      const last = [...printed].at(-1)!.split(' ')[1]!
      for (const ticker of new Set([...printed].map((p) => p.split(' ')[0]!))) {
        const contest = await waitFor(
          `contest ${ticker} (past any 429)`,
          async () => {
            const res = await fetch(`${url}/v1/contests/${ticker}`, {
              headers: { Authorization: `Bearer ${key}` },
            })
            return res.status === 200
              ? ((await res.json()) as { signals: { raised_at: string }[] })
              : undefined
          },
          10_000,
          500,
        )
        for (const s of contest.signals)
          if (s.raised_at <= last)
            assert.ok(printed.has(`${ticker} ${s.raised_at}`), `${ticker} ${s.raised_at} missed`)
      }
    } finally {
      run.child.kill('SIGKILL')
    }
  })
})
