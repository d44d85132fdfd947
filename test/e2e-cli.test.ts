// The operator's view: the real `contest-signals` program, started and stopped as a process.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import { request } from 'node:https'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { SIM_PARAMS } from '../src/feeds/sim/sim-params.ts'
import { isTradingPaused } from '../src/feeds/sim/weekly-pause.ts'
import {
  bootstrapKeyFileFrom,
  bootstrapKeyFrom,
  runCli,
  startProcess,
  tempDir,
} from './support/service-process.ts'
import { activeContest } from './support/sim-service.ts'
import { openStream } from './support/sse-client.ts'
import { OFF_PAUSE_START } from './support/timeline.ts'
import { waitFor } from './support/wait.ts'

const auth = (key: string) => ({ Authorization: `Bearer ${key}` })

function envFor(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: `sqlite:${path.join(dir, 'cs.db')}`,
    PORT: '0',
    SIM_SEED: '11',
    SIM_SPEED: '60',
    // away from the sandbox's weekly pause, whatever the day the test runs on
    SIM_START: OFF_PAUSE_START,
    SIM_BACKFILL_DAYS: '1',
    LOG_LEVEL: 'info',
    ...extra,
  }
}

describe('contest-signals serve (first start)', () => {
  const tmp = tempDir()
  const env = envFor(tmp.dir)
  let service: ReturnType<typeof startProcess>
  let url: string
  let key: string

  before(async () => {
    service = startProcess(['serve'], env)
    url = await service.url
    key = await service.bootstrapKey
  })
  after(async () => {
    await service.kill('SIGTERM')
    tmp.remove()
  })

  it('writes a bootstrap key once to a 0600 file the log names, with ready-to-paste curl commands, and the key works', async () => {
    assert.match(key, /^cs_[A-Za-z0-9_-]{32}$/)
    const file = bootstrapKeyFileFrom(service.stdout())!
    assert.equal(file, path.join(tmp.dir, 'bootstrap-key.txt'))
    assert.equal(statSync(file).mode & 0o777, 0o600)
    assert.match(
      readFileSync(file, 'utf8'),
      /curl -s -H "Authorization: Bearer cs_[^"]+" "http:\/\/127\.0\.0\.1:\d+\/v1\/contests\/active\?series=KXBTC15M"/,
    )
    // Not a terminal: nothing but JSON log lines on stdout, and the key in none of them, nor on stderr.
    assert.ok(!service.stdout().includes(key))
    assert.ok(!service.stderr().includes(key))
    const contest = await activeContest(url, key)
    assert.equal(contest.state, 'live')
    assert.match(contest.ticker, /^KXBTC15M-\d{2}[A-Z]{3}\d{6}-\d{2}$/)
  })

  it('has a day of settled history already there', async () => {
    const res = await fetch(`${url}/v1/contests?series=KXBTC15M&limit=100`, { headers: auth(key) })
    const body = (await res.json()) as {
      contests: Array<{ state: string; signals: unknown[]; window: { opens_at: string } }>
    }
    // 96 quarter-hours in a day; the newest may still be settling on the live path.
    assert.ok(body.contests.length >= 95 && body.contests.length <= 97, `${body.contests.length} contests`)
    assert.ok(body.contests.every((c) => c.state === 'settled'))
    // every backfilled contest has readings, but those of the weekly trading pause (no quotes:
    // decisions §3, §11). One that opened at or after the start ran on the live path, where at 60×
    // the minutes the engine spent on the backfill went by unread (late readings are never made).
    const backfilled = body.contests.filter(
      (c) => Date.parse(c.window.opens_at) < Date.parse(OFF_PAUSE_START),
    )
    assert.ok(backfilled.length >= 95, `${backfilled.length} backfilled contests`)
    for (const c of backfilled) {
      const paused = isTradingPaused(SIM_PARAMS.pause, Date.parse(c.window.opens_at) + 60_000)
      assert.equal(c.signals.length > 0, !paused, c.window.opens_at)
    }
  })

  it('reports health ok for the store and the engine', async () => {
    const res = await fetch(`${url}/v1/health`)
    const health = (await res.json()) as { status: string; checks: Record<string, string> }
    assert.equal(res.status, 200)
    assert.equal(health.status, 'ok')
    assert.deepEqual(health.checks, { store: 'ok', engine: 'ok' })
  })

  it('with PORT=0 and no PUBLIC_BASE_URL, problem types and the OpenAPI servers name the port it took, and resolve', async () => {
    assert.doesNotMatch(url, /:0$/)
    const problem = (await (await fetch(`${url}/v1/contests?series=KXBTC15M`)).json()) as { type: string }
    assert.equal(problem.type, `${url}/problems/unauthorized`)
    const page = await fetch(problem.type)
    assert.equal(page.status, 200)
    await page.body?.cancel()
    const openapi = (await (await fetch(`${url}/v1/openapi.json`)).json()) as { servers: { url: string }[] }
    assert.deepEqual(openapi.servers, [{ url }])
  })

  it('never logs the key it printed', () => {
    const logLines = service
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
    assert.ok(logLines.length > 0)
    assert.ok(logLines.every((l) => !l.includes(key)))
  })

  it('keys create prints the new key alone on the last line, and it works on the running server', async () => {
    const created = await runCli(['keys', 'create', '--label', 'integration'], env)
    assert.equal(created.code, 0)
    const lines = created.stdout.trimEnd().split('\n')
    const newKey = lines[lines.length - 1]!
    assert.match(newKey, /^cs_[A-Za-z0-9_-]{32}$/)
    const res = await fetch(`${url}/v1/contests?series=KXBTC15M&limit=1`, { headers: auth(newKey) })
    assert.equal(res.status, 200)
  })

  it('keys list shows id, label, prefix, created, last used and revoked, never the secret', async () => {
    const listed = await runCli(['keys', 'list'], env)
    assert.equal(listed.code, 0)
    assert.match(listed.stdout, /^ID\s+LABEL\s+PREFIX\s+CREATED\s+LAST USED\s+REVOKED/)
    assert.match(listed.stdout, /bootstrap\s+cs_\S{7}…/)
    assert.ok(!listed.stdout.includes(key))
  })

  it('keys revoke stops a key on the running server within 5 seconds', async () => {
    const created = await runCli(['keys', 'create', '--label', 'to-revoke'], env)
    const victim = created.stdout.trimEnd().split('\n').pop()!
    const id = /created key (\S+)/.exec(created.stdout)![1]!
    // the settled history answers 200 whenever asked (the active contest is 404 between two)
    assert.equal(
      (await fetch(`${url}/v1/contests?series=KXBTC15M&limit=1`, { headers: auth(victim) })).status,
      200,
    )
    const revoked = await runCli(['keys', 'revoke', id], env)
    assert.equal(revoked.code, 0)
    // the 5 s bound is the key cache's rule, held on the test's clock by src/http/key-auth.test.ts
    await waitFor(
      'the revoked key to be refused',
      async () => {
        const res = await fetch(`${url}/v1/health`)
        await res.arrayBuffer()
        const r = await fetch(`${url}/v1/contests/active?series=KXBTC15M`, { headers: auth(victim) })
        await r.arrayBuffer()
        return r.status === 401 ? true : undefined
      },
      15_000,
      250,
    )
    const again = await runCli(['keys', 'revoke', id], env)
    assert.equal(again.code, 1)
    assert.match(again.stderr, /no active key/)
  })
})

describe('contest-signals serve (second start on the same store)', () => {
  it('does not print a bootstrap key again and does not backfill twice', async () => {
    const tmp = tempDir()
    try {
      const env = envFor(tmp.dir, { SIM_BACKFILL_DAYS: '1' })
      const first = startProcess(['serve'], env)
      await first.url
      const key = await first.bootstrapKey
      await first.kill('SIGTERM')
      const second = startProcess(['serve'], env)
      const url = await second.url
      try {
        assert.equal(bootstrapKeyFrom(second.stdout()), null)
        const res = await fetch(`${url}/v1/contests?series=KXBTC15M&limit=100`, { headers: auth(key) })
        const body = (await res.json()) as { contests: Array<{ ticker: string }> }
        assert.equal(new Set(body.contests.map((c) => c.ticker)).size, body.contests.length)
        assert.ok(body.contests.length >= 95 && body.contests.length <= 97)
      } finally {
        await second.kill('SIGTERM')
      }
    } finally {
      tmp.remove()
    }
  })
})

describe('contest-signals shutdown', () => {
  it('on SIGTERM during a first start’s backfill stops it, opens nothing, exits 0; the next start goes on with it', async () => {
    const tmp = tempDir()
    try {
      const env = envFor(tmp.dir, { SIM_BACKFILL_DAYS: '20' })
      const first = startProcess(['serve'], env)
      await waitFor('the backfill under way', async () =>
        first.stdout().includes('"backfilling history"') ? true : undefined,
      )
      const { code } = await first.kill('SIGTERM')
      assert.equal(code, 0, first.stderr())
      assert.ok(first.stdout().includes('backfill stopped by the stop asked for'), first.stdout())
      assert.ok(!first.stdout().includes('api listening'), 'never listened')
      assert.equal(bootstrapKeyFileFrom(first.stdout()), null, 'no key handed over')
      // the second start backfills most of 20 days before it listens: far more CPU than a start
      // (over 30 s of it in a loaded CI run), so its bound is the backfill’s, not a start’s
      const second = startProcess(['serve'], env, { startupCpuS: 120 })
      try {
        const url = await second.url
        const key = await second.bootstrapKey
        assert.ok(second.stdout().includes('going on with one a stop cut short'))
        // the whole 20 days: 1,920 quarter hours, less the one or two still settling
        const settled = await runCli(['backtest', '--series', 'KXBTC15M', '--json'], env)
        assert.equal(settled.code, 0, settled.stderr)
        const contests = (JSON.parse(settled.stdout) as { contests: number }).contests
        assert.ok(contests >= 1_918 && contests <= 1_921, `${contests} settled contests`)
        assert.equal(
          (await fetch(`${url}/v1/contests/active?series=KXBTC15M`, { headers: auth(key) })).status,
          200,
        )
      } finally {
        await second.kill('SIGTERM')
      }
    } finally {
      tmp.remove()
    }
  })

  it('on SIGTERM ends open streams, closes the store and exits 0', async () => {
    const tmp = tempDir()
    try {
      const service = startProcess(['serve'], envFor(tmp.dir, { SIM_BACKFILL_DAYS: '0' }))
      const url = await service.url
      const key = await service.bootstrapKey
      const stream = await openStream(`${url}/v1/stream/contests?series=KXBTC15M`, { key })
      assert.equal(stream.status, 200)
      const { code } = await service.kill('SIGTERM')
      assert.equal(code, 0)
      await stream.ended
      assert.match(service.stdout(), /"msg":"stopped"/)
    } finally {
      tmp.remove()
    }
  })

  it('on SIGINT exits 0 as well', async () => {
    const tmp = tempDir()
    try {
      const service = startProcess(['serve'], envFor(tmp.dir, { SIM_BACKFILL_DAYS: '0' }))
      await service.url
      const { code } = await service.kill('SIGINT')
      assert.equal(code, 0)
    } finally {
      tmp.remove()
    }
  })
})

describe('contest-signals on every address (HOST=0.0.0.0, no PUBLIC_BASE_URL)', () => {
  it('names localhost in problem types and the first key’s curl lines, not the wildcard, and warns once at start', async () => {
    const tmp = tempDir()
    const service = startProcess(['serve'], envFor(tmp.dir, { HOST: '0.0.0.0', SIM_BACKFILL_DAYS: '0' }))
    try {
      const url = await service.url
      await service.bootstrapKey
      const base = `http://localhost:${new URL(url).port}`
      const res = await fetch(`${url}/v1/contests/active`)
      assert.equal(res.status, 401)
      const problem = (await res.json()) as { type: string }
      assert.equal(problem.type, `${base}/problems/unauthorized`)
      const banner = readFileSync(bootstrapKeyFileFrom(service.stdout())!, 'utf8')
      assert.equal(banner.match(/curl -[sN] -H "[^"]+" "http:\/\/localhost:\d+\//g)?.length, 3, banner)
      assert.ok(banner.includes(`"${base}/v1/contests/active?series=KXBTC15M"`))
      const warning = 'PUBLIC_BASE_URL is unset and HOST listens on every address'
      await waitFor('the warning', async () => (service.stdout().includes(warning) ? true : undefined))
      const lines = service.stdout().split('\n')
      assert.equal(lines.filter((l) => l.includes(warning)).length, 1)
      // pino's level 40 is warn
      assert.equal(JSON.parse(lines.find((l) => l.includes(warning)) as string).level, 40)
    } finally {
      await service.kill('SIGTERM')
      tmp.remove()
    }
  })
})

describe('contest-signals usage errors', () => {
  it('answers an unknown option as every usage error: the command, the option, its help, exit 2', async () => {
    for (const command of ['replay', 'evaluate', 'backtest']) {
      const r = await runCli([command, '--bogus'], { DATABASE_URL: 'sqlite::memory:' })
      assert.equal(r.code, 2, r.stderr)
      assert.equal(
        r.stderr,
        `contest-signals ${command}: Unknown option '--bogus' (see contest-signals ${command} --help)\n`,
      )
    }
  })
})

describe('contest-signals configuration errors', () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['a port that is not a number', { PORT: 'eighty' }, /PORT="eighty" is not a whole number/],
    ['an unknown database scheme', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be/],
    ['a simulator speed of zero', { SIM_SPEED: '0' }, /SIM_SPEED/],
    ['an unknown venue', { VENUE: 'nyse' }, /VENUE="nyse" is not a known venue/],
    [
      'a listen address that is no address',
      { HOST: '999.1.1.1' },
      /: HOST="999\.1\.1\.1" is not an IP address/,
    ],
    ['a series set but empty', { SERIES: '' }, /: SERIES is set but empty/],
  ]
  for (const [what, env, pattern] of cases) {
    it(`stops with one clear line and a non-zero exit for ${what}`, async () => {
      const r = await runCli(['serve'], env)
      assert.equal(r.code, 1)
      const lines = r.stderr.trimEnd().split('\n')
      assert.equal(lines.length, 1)
      assert.match(lines[0]!, pattern)
      assert.equal(r.stdout, '')
    })
  }

  it('names TLS_CERT_FILE and TLS_KEY_FILE when their files are missing, before opening anything', async () => {
    const tmp = tempDir()
    try {
      const r = await runCli(
        ['serve'],
        envFor(tmp.dir, {
          TLS_CERT_FILE: path.join(tmp.dir, 'cert.pem'),
          TLS_KEY_FILE: '/nonexistent/key.pem',
        }),
      )
      assert.equal(r.code, 1)
      assert.equal(r.stderr.trimEnd().split('\n').length, 1)
      assert.match(r.stderr, /TLS_CERT_FILE=".*cert\.pem" cannot be read \(ENOENT\)/)
      assert.match(r.stderr, /TLS_KEY_FILE="\/nonexistent\/key\.pem" cannot be read \(ENOENT\)/)
      assert.equal(r.stdout, '')
    } finally {
      tmp.remove()
    }
  })

  it('refuses to simulate a Polymarket series as a Kalshi market, before opening anything', async () => {
    const tmp = tempDir()
    try {
      const env = envFor(tmp.dir, { SIM_BACKFILL_DAYS: '0', SERIES: 'KXBTC15M,btc-updown-15m' })
      for (const role of ['serve', 'engine']) {
        const run = await runCli([role], env)
        assert.equal(run.code, 1, role)
        assert.match(
          run.stderr,
          /^contest-signals: invalid configuration: SERIES "btc-updown-15m" is a polymarket series, and the simulator \(VENUE=sim\) serves Kalshi's market only/,
        )
      }
    } finally {
      tmp.remove()
    }
  })

  it('names PORT and METRICS_PORT when their ports are taken', async () => {
    const tmp = tempDir()
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    const port = String((busy.address() as AddressInfo).port)
    try {
      const env = envFor(tmp.dir, { SIM_BACKFILL_DAYS: '0', LOG_LEVEL: 'warn' })
      const [api, metrics] = await Promise.all([
        runCli(['serve'], { ...env, PORT: port }),
        runCli(['engine'], { ...env, METRICS_PORT: port }),
      ])
      // found before the store opened: no engine ran, nothing was written
      assert.equal(existsSync(path.join(tmp.dir, 'cs.db')), false)
      assert.equal(api.code, 1)
      assert.match(
        api.stderr,
        new RegExp(
          `^contest-signals: invalid configuration: PORT=${port}: 127\\.0\\.0\\.1:${port} is already in use`,
        ),
      )
      assert.equal(metrics.code, 1)
      assert.match(
        metrics.stderr,
        new RegExp(`^contest-signals: invalid configuration: METRICS_PORT=${port}: `),
      )
      const same = await runCli(['serve'], { ...env, PORT: '18999', METRICS_PORT: '18999' })
      assert.equal(same.code, 1)
      assert.match(
        same.stderr,
        /^contest-signals: invalid configuration: METRICS_PORT=18999 is PORT too: the metrics are served on a port of their own\n$/,
      )
    } finally {
      busy.close()
      tmp.remove()
    }
  })

  it('names DATABASE_URL, without its password, when PostgreSQL cannot be reached', async () => {
    const r = await runCli(['migrate'], { DATABASE_URL: 'postgres://contest:s3cret@127.0.0.1:1/contest' })
    assert.equal(r.code, 1)
    assert.match(
      r.stderr,
      /^contest-signals: DATABASE_URL: cannot use PostgreSQL at postgres:\/\/contest:\*\*\*@127\.0\.0\.1:1\/contest: .*ECONNREFUSED/,
    )
    assert.doesNotMatch(r.stderr, /s3cret/)
  })

  it('answers an unknown command with the usage and exit code 2', async () => {
    const r = await runCli(['launch'], {})
    assert.equal(r.code, 2)
    assert.match(r.stderr, /unknown command "launch"/)
    const help = await runCli(['help', 'launch'], {})
    assert.equal(help.code, 2)
    assert.match(help.stderr, /^contest-signals: no help on "launch": not a command\n/)
  })

  it('refuses an option given twice, and takes a negative number as an option value', async () => {
    const tmp = tempDir()
    try {
      const env = envFor(tmp.dir)
      const twice = await runCli(['evaluate', '--series', 'A', '--series', 'B'], env)
      assert.equal(twice.code, 2)
      assert.match(twice.stderr, /^contest-signals evaluate: --series is given more than once/)
      // `--min-edge -5` as the help writes it: parsed, then judged (no store here), never ambiguous
      const negative = await runCli(['backtest', '--min-edge', '-5'], env)
      assert.doesNotMatch(negative.stderr, /ambiguous|--min-edge/)
      const days = await runCli(['sim', 'tape', '--days', '-1', '--out', path.join(tmp.dir, 't.gz')], env)
      assert.equal(days.code, 2)
      assert.match(days.stderr, /^contest-signals sim tape: --days must be a whole number from 1 to 366/)
    } finally {
      tmp.remove()
    }
  })

  it('keys create without a label is refused', async () => {
    const tmp = tempDir()
    try {
      const r = await runCli(['keys', 'create'], envFor(tmp.dir))
      assert.equal(r.code, 2)
      assert.match(r.stderr, /--label/)
    } finally {
      tmp.remove()
    }
  })
})

describe('contest-signals migrate and keys on a fresh store', () => {
  it('migrate applies the schema and exits 0; keys create works before any serve', async () => {
    const tmp = tempDir()
    try {
      const env = envFor(tmp.dir)
      const m = await runCli(['migrate'], env)
      assert.equal(m.code, 0)
      assert.match(m.stdout, /migrations applied; deployment epoch [0-9a-z]{8}/)
      const fresh = tempDir()
      try {
        const k = await runCli(['keys', 'create', '--label', 'early'], envFor(fresh.dir))
        assert.equal(k.code, 0)
        const l = await runCli(['keys', 'list'], envFor(fresh.dir))
        assert.match(l.stdout, /early/)
      } finally {
        fresh.remove()
      }
    } finally {
      tmp.remove()
    }
  })
})

describe('contest-signals keys with a careless operator', () => {
  const tmp = tempDir()
  const env = envFor(tmp.dir)
  after(() => tmp.remove())

  it('keys revoke given the key itself instead of its id refuses without repeating the key', async () => {
    const created = await runCli(['keys', 'create', '--label', 'pasted'], env)
    const key = created.stdout.trim().split('\n').at(-1)!
    const r = await runCli(['keys', 'revoke', key], env)
    assert.equal(r.code, 2)
    assert.match(r.stderr, /keys revoke takes the key's ID/)
    // the prefix `keys list` shows anyway, never the rest of the secret
    assert.match(r.stderr, new RegExp(key.slice(0, 10)))
    assert.ok(!`${r.stdout}${r.stderr}`.includes(key.slice(10)), r.stderr)
    // and the key still works: nothing was revoked
    const listed = await runCli(['keys', 'list', '--json'], env)
    assert.equal((JSON.parse(listed.stdout) as { revoked_at: string | null }[])[0]?.revoked_at, null)
  })

  it('never repeats a key given as a stray argument', async () => {
    const key = 'cs_nFhD9Vrf4A0akUGRU0PZg9tKA0w'
    for (const args of [['keys', 'list', key], ['migrate', key], [key]]) {
      const r = await runCli(args, env)
      assert.equal(r.code, 2)
      assert.match(r.stderr, /unexpected argument|unknown command/)
      assert.ok(!r.stderr.includes(key.slice(3)), r.stderr)
    }
  })

  it('refuses a label with control characters, which would break every later keys list', async () => {
    for (const label of ['two\nlines', 'tab\there', 'esc\u001b[2J']) {
      const r = await runCli(['keys', 'create', '--label', label], env)
      assert.equal(r.code, 2, JSON.stringify(label))
      assert.match(r.stderr, /--label/)
      assert.equal(r.stdout, '')
    }
  })
})

describe('contest-signals over TLS', () => {
  it('serves HTTPS when TLS_CERT_FILE and TLS_KEY_FILE are set', async () => {
    const tmp = tempDir()
    try {
      const cert = path.join(tmp.dir, 'cert.pem')
      const keyFile = path.join(tmp.dir, 'key.pem')
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-keyout',
          keyFile,
          '-out',
          cert,
        ],
        { stdio: 'ignore' },
      )
      const service = startProcess(
        ['serve'],
        envFor(tmp.dir, { TLS_CERT_FILE: cert, TLS_KEY_FILE: keyFile, SIM_BACKFILL_DAYS: '0' }),
      )
      try {
        const url = await service.url
        assert.match(url, /^https:\/\//)
        const body = await new Promise<string>((resolve, reject) => {
          request(`${url}/v1/health`, { rejectUnauthorized: false }, (res) => {
            let data = ''
            res
              .setEncoding('utf8')
              .on('data', (d: string) => {
                data += d
              })
              .on('end', () => resolve(data))
          })
            .on('error', reject)
            .end()
        })
        assert.equal((JSON.parse(body) as { status: string }).status, 'ok')
      } finally {
        await service.kill('SIGTERM')
      }
    } finally {
      tmp.remove()
    }
  })
})
