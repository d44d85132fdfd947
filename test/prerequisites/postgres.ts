// PostgreSQL for the scaled-out tests: TEST_DATABASE_URL when set, else the machine's server when it
// answers, else a private throwaway instance (initdb + pg_ctl into a temporary directory, on a free
// port) that lives as long as the run.
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { freePort } from '../support/ports.ts'
import { isExecutable, lastLine, onPath, run, runSync } from './programs.ts'
import { Unmet } from './report.ts'
import type { PrivateService, Resolved } from './services.ts'
import type { RunAs } from './unprivileged.ts'

export type PostgresSettings = {
  /** TEST_DATABASE_URL */
  given: string | undefined
  /** the machine's server, tried before starting one */
  probe: string
  searchPath: string
  runAs: () => RunAs
}

export async function resolvePostgres(settings: PostgresSettings): Promise<Resolved> {
  if (settings.given !== undefined) {
    const problem = await unanswered(settings.given)
    if (problem !== null)
      throw new Unmet('PostgreSQL', `TEST_DATABASE_URL=${redact(settings.given)}: ${problem}`)
    return { url: settings.given, line: `TEST_DATABASE_URL=${redact(settings.given)}` }
  }
  const problem = await unanswered(settings.probe)
  if (problem === null) return { url: settings.probe, line: `the machine's, ${redact(settings.probe)}` }
  const bin = postgresBinDir(settings.searchPath)
  if (bin === null)
    throw new Unmet(
      'PostgreSQL',
      `${hostOf(settings.probe)} does not answer (${problem}) and initdb is not installed: apt-get install postgresql (or set TEST_DATABASE_URL)`,
    )
  const service = await startPrivatePostgres(bin, settings.runAs())
  return {
    url: service.url,
    service,
    line: `private, ${service.url} in ${service.dir} (${hostOf(settings.probe)}: ${problem}); removed when the run ends`,
  }
}

/** null when a query gets through to `url`, else why not. */
async function unanswered(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  client.on('error', () => undefined)
  try {
    await client.connect()
    await client.query('SELECT 1')
    return null
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    return e.code === 'ECONNREFUSED' ? 'connection refused' : e.message
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** The folder holding initdb and pg_ctl: the PATH's, else Debian's newest /usr/lib/postgresql/N/bin. */
function postgresBinDir(searchPath: string): string | null {
  const initdb = onPath('initdb', searchPath)
  if (initdb !== null && isExecutable(path.join(path.dirname(initdb), 'pg_ctl'))) return path.dirname(initdb)
  let versions: string[] = []
  try {
    versions = readdirSync('/usr/lib/postgresql')
  } catch {
    return null
  }
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) {
    const bin = path.join('/usr/lib/postgresql', version, 'bin')
    if (isExecutable(path.join(bin, 'initdb')) && isExecutable(path.join(bin, 'pg_ctl'))) return bin
  }
  return null
}

async function startPrivatePostgres(bin: string, runAs: RunAs): Promise<PrivateService> {
  const dir = mkdtempSync(path.join(tmpdir(), 'contest-signals-test-pg-'))
  const data = path.join(dir, 'data')
  const as = (program: string, args: readonly string[]) => runAs.wrap(path.join(bin, program), args)
  const pgCtl = (...args: string[]) => as('pg_ctl', ['-D', data, ...args])
  const remove = () => rmSync(dir, { recursive: true, force: true })
  let started = false
  const stopSync = () => {
    if (started) runSync(...pgCtl('-m', 'immediate', '-w', 'stop'), { cwd: dir })
    started = false
    remove()
  }
  try {
    if (runAs.owner !== null) chownSync(dir, runAs.owner.uid, runAs.owner.gid)
    // A throwaway cluster: trust on loopback, no durability (fsync off) since nothing outlives the run.
    const init = await run(
      ...as('initdb', [
        '-D',
        data,
        '-U',
        'postgres',
        '-A',
        'trust',
        '-E',
        'UTF8',
        '--no-locale',
        '--no-sync',
      ]),
      { cwd: dir },
    )
    if (init.code !== 0) throw new Unmet('PostgreSQL', `initdb failed: ${lastLine(init.output)}`)
    let port = 0
    // The free port can be taken between the probe and the start: try another.
    for (let attempt = 1; !started; attempt++) {
      port = await freePort()
      const options = [
        `-p ${port}`,
        `-k '${dir}'`,
        '-c listen_addresses=127.0.0.1',
        '-c fsync=off',
        '-c synchronous_commit=off',
        '-c full_page_writes=off',
        '-c max_connections=200',
      ].join(' ')
      const start = await run(
        ...pgCtl('-l', path.join(dir, 'server.log'), '-w', '-t', '60', '-s', '-o', options, 'start'),
        { cwd: dir },
      )
      started = start.code === 0
      // a start that timed out may still come up: make sure it is down before another try
      if (!started) await run(...pgCtl('-m', 'immediate', '-w', 'stop'), { cwd: dir })
      if (!started && attempt === 3)
        throw new Unmet('PostgreSQL', `pg_ctl start failed: ${lastLine(serverLog(dir) || start.output)}`)
    }
    const admin = `postgres://postgres@127.0.0.1:${port}/postgres`
    const client = new pg.Client({ connectionString: admin })
    await client.connect()
    try {
      await client.query('CREATE DATABASE test')
    } finally {
      await client.end()
    }
    return {
      url: `postgres://postgres@127.0.0.1:${port}/test`,
      dir,
      stopSync,
      stop: async () => {
        if (started) await run(...pgCtl('-m', 'immediate', '-w', 'stop'), { cwd: dir })
        started = false
        remove()
      },
    }
  } catch (err) {
    stopSync()
    throw err
  }
}

function serverLog(dir: string): string {
  try {
    return readFileSync(path.join(dir, 'server.log'), 'utf8')
  } catch {
    return ''
  }
}

function hostOf(url: string): string {
  return new URL(url).host
}

function redact(url: string): string {
  const u = new URL(url)
  if (u.password !== '') u.password = '***'
  return u.toString()
}
