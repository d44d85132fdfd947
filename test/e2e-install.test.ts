// The CLI installs and runs from an installed copy (decisions §16): Node refuses to strip types under
// node_modules, so `npm pack` builds the JavaScript (prepack, tsconfig.build.json) that the package's
// `bin` launcher runs there, while a checkout runs its TypeScript unbuilt. The tarball is installed
// into a temporary project (test/support/packed-install.ts) and run from there, its working
// directory outside the repository: --version, then serve until health answers.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { VERSION } from '../src/main/version.ts'
import { installOffline, nodeEnv, pack } from './support/packed-install.ts'
import { REPO_ROOT, type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'

const run = promisify(execFile)

describe('contest-signals installed from its npm pack tarball', () => {
  const tmp = tempDir('cs-install-')
  const project = path.join(tmp.dir, 'project')
  let installed: string
  let bin: string
  let service: ServiceProcess | undefined

  before(async () => {
    mkdirSync(project)
    installed = await installOffline(project, await pack(REPO_ROOT, tmp.dir))
    bin = path.join(project, 'node_modules/.bin/contest-signals')
  })
  after(async () => {
    await service?.kill()
    tmp.remove()
  })

  it('installs as JavaScript outside the repository, without the TypeScript of the CLI', () => {
    assert.ok(!realpathSync(installed).startsWith(REPO_ROOT))
    assert.equal(realpathSync(bin), path.join(realpathSync(installed), 'bin/contest-signals.js'))
    assert.ok(existsSync(path.join(installed, 'dist/cli/main.js')))
    assert.ok(!existsSync(path.join(installed, 'src/cli')))
  })

  it('runs its TypeScript unbuilt from a checkout, through the same launcher', async () => {
    const { stdout } = await run(path.join(REPO_ROOT, 'bin/contest-signals.js'), ['--version'], {
      cwd: REPO_ROOT,
      env: nodeEnv(),
    })
    assert.equal(stdout.trim(), `contest-signals ${VERSION}`)
  })

  it('answers --version through its bin link', async () => {
    const { stdout } = await run(bin, ['--version'], { cwd: project, env: nodeEnv() })
    assert.equal(stdout.trim(), `contest-signals ${VERSION}`)
  })

  it('serves: health answers, the dashboard and the API reference load', async () => {
    service = startProcess(
      ['serve'],
      {
        DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
        PORT: '0',
        SIM_BACKFILL_DAYS: '0',
        LOG_LEVEL: 'info',
      },
      { cli: bin, cwd: project },
    )
    const url = await service.url
    const health = await fetch(`${url}/v1/health`)
    assert.equal(health.status, 200)
    assert.equal(((await health.json()) as { version: string }).version, VERSION)
    for (const page of ['/dashboard', '/dashboard/app.ts', '/dashboard/domain/venue-refs.ts', '/docs'])
      assert.equal((await fetch(`${url}${page}`)).status, 200, page)
  })
})
