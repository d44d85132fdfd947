// Health sees the store (decisions §4): a disk that refuses writes turns checks.store "degraded"
// within seconds and "ok" again after; a damaged file is refused at start with one line, and a damaged
// page met at run time is answered 503 with checks.store "corrupt"; a store written by a newer release
// is refused by every command. The full disk is a file-size limit put on the running process
// (prlimit), so no mount or privilege is needed.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { closeSync, copyFileSync, openSync, writeSync } from 'node:fs'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { after, before, describe, it } from 'node:test'
import { bootstrapKeyFrom, runCli, startProcess, tempDir } from './support/service-process.ts'
import { OFF_PAUSE_START } from './support/timeline.ts'
import { eventually, waitFor } from './support/wait.ts'

type Health = { status: string; checks: { store: string } }

function envFor(db: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: `sqlite:${db}`,
    BOOTSTRAP_KEY_FILE: `${db}.key.txt`,
    PORT: '0',
    SIM_SEED: '5',
    SIM_SPEED: '60',
    SIM_START: OFF_PAUSE_START,
    SIM_BACKFILL_DAYS: '0',
    LOG_LEVEL: 'info',
    ...extra,
  }
}

const health = async (url: string): Promise<Health> =>
  (await fetch(`${url}/v1/health`)).json() as Promise<Health>

/**
 * Overwrites every page of the tables each listing reads (contests, signals) with bytes no SQLite page
 * has. Which pages those are comes from the file itself (dbstat): a fixed stretch of the file may hold
 * only free pages, which no check and no read ever meets.
 */
function damageListedTables(file: string): void {
  const db = new DatabaseSync(file, { readOnly: true })
  let pageSize: number
  let pages: number[]
  try {
    pageSize = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size)
    pages = (
      db.prepare("SELECT pageno FROM dbstat WHERE name IN ('contests', 'signals') AND pageno > 1").all() as {
        pageno: number
      }[]
    ).map((r) => Number(r.pageno))
  } finally {
    db.close()
  }
  assert.ok(pages.length > 0, 'the listed tables hold no pages')
  const fd = openSync(file, 'r+')
  try {
    for (const page of pages) writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, (page - 1) * pageSize)
  } finally {
    closeSync(fd)
  }
}

describe('health and the store', () => {
  const tmp = tempDir('cs-store-health-')
  // a day of settled history, made once and copied for each case
  const history = path.join(tmp.dir, 'history.db')
  before(async () => {
    const made = startProcess(['serve'], envFor(history, { SIM_BACKFILL_DAYS: '1', BOOTSTRAP_KEY: 'off' }))
    await made.url
    await waitFor(
      'the backfill',
      () => (made.stdout().includes('history backfilled') ? true : undefined),
      60_000,
    )
    await made.kill('SIGTERM')
  })
  after(() => tmp.remove())

  it('a disk that refuses writes turns checks.store degraded within seconds, and ok after, with one stack in the log', async () => {
    const db = path.join(tmp.dir, 'full.db')
    const service = startProcess(['serve'], envFor(db))
    try {
      const url = await service.url
      await eventually(
        () => health(url),
        (h) => h.status === 'ok',
        10_000,
      )
      // every write past 4 KiB of any file now fails, as on a full disk
      execFileSync('prlimit', [`--pid=${service.child.pid}`, '--fsize=4096:'])
      const degraded = await eventually(
        () => health(url),
        (h) => h.checks.store === 'degraded',
        15_000,
      )
      assert.equal(degraded.status, 'degraded')
      execFileSync('prlimit', [`--pid=${service.child.pid}`, '--fsize=unlimited:'])
      await eventually(
        () => health(url),
        (h) => h.checks.store === 'ok' && h.status === 'ok',
        15_000,
      )
      const stacks = service
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"stack"')).length
      assert.ok(stacks <= 3, `${stacks} stacks logged`)
    } finally {
      await service.kill('SIGTERM')
    }
  })

  it('a damaged file is refused at start by serve and migrate with one line', async () => {
    const db = path.join(tmp.dir, 'damaged.db')
    copyFileSync(history, db)
    damageListedTables(db)
    for (const command of [['serve'], ['migrate']]) {
      const run = await runCli(command, envFor(db))
      assert.notEqual(run.code, 0, command[0])
      const lines = run.stderr.trim().split('\n')
      assert.equal(lines.length, 1, run.stderr)
      assert.match(
        lines[0]!,
        /^contest-signals: DATABASE_URL: cannot open the SQLite store at .*damaged\.db: the store's data is damaged \(/,
      )
    }
  })

  it('a damaged page met at run time is answered 503 and health says corrupt', async () => {
    const db = path.join(tmp.dir, 'running.db')
    copyFileSync(history, db)
    const service = startProcess(['serve'], envFor(db, { BOOTSTRAP_KEY: 'on' }))
    try {
      const url = await service.url
      const key = await waitFor('the key', () => bootstrapKeyFrom(service.stdout()) ?? undefined)
      damageListedTables(db)
      const statuses: number[] = []
      let before = ''
      for (let page = 0; page < 10 && !statuses.includes(503); page++) {
        const res = await fetch(`${url}/v1/contests?series=KXBTC15M&limit=100${before}`, {
          headers: { Authorization: `Bearer ${key}` },
        })
        statuses.push(res.status)
        if (res.status === 503) {
          const problem = (await res.json()) as { type: string }
          assert.match(problem.type, /\/problems\/unavailable$/)
          assert.ok(res.headers.get('retry-after'))
        } else {
          const body = (await res.json()) as { contests: { window: { expires_at: string } }[] }
          before = `&before=${body.contests.at(-1)?.window.expires_at}`
        }
      }
      assert.ok(statuses.includes(503), `statuses ${statuses}`)
      assert.ok(!statuses.includes(500), `statuses ${statuses}`)
      const h = await health(url)
      assert.equal(h.checks.store, 'corrupt')
      assert.equal(h.status, 'degraded')
    } finally {
      await service.kill('SIGTERM')
    }
  })

  it('a store written by a newer release is refused by every command with one line', async () => {
    const db = path.join(tmp.dir, 'newer.db')
    copyFileSync(history, db)
    const raw = new DatabaseSync(db)
    raw.exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from the future', 0)")
    raw.close()
    for (const command of [['migrate'], ['keys', 'list'], ['serve']]) {
      const run = await runCli(command, envFor(db))
      assert.notEqual(run.code, 0, command.join(' '))
      const lines = run.stderr.trim().split('\n')
      assert.equal(lines.length, 1, run.stderr)
      assert.match(
        lines[0]!,
        /schema is version 999, written by a newer contest-signals; this program knows up to version \d+/,
      )
    }
  })
})
