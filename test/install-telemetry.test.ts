// No telemetry at install. swagger-ui-dist depends on @scarf/scarf, whose postinstall script reports
// the install to scarf.sh unless the root package opts out; package.json does, with
// `"scarfSettings": { "enabled": false }`, the setting scarf documents and its report.js reads.
// The installed scarf is run here on the installed tree (`npm ls`, as its postinstall runs it) and
// must refuse to report; with the setting taken out of the same tree it reports to a loopback
// server standing in for scarf.sh, so the test can tell the two apart.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { childEnv, REPO_ROOT, tempDir } from './support/service-process.ts'

const run = promisify(execFile)
const REPORT = path.join(REPO_ROOT, 'node_modules/@scarf/scarf/report.js')

/**
 * Scarf's postinstall, minus its own `npm ls` (which it gives 3 s, so under load it may give up
 * before reading the setting): the tree it would have read is handed in, the rest is its code.
 */
const REPORT_WITH_TREE = `
const scarf = require(process.env.SCARF_REPORT_JS)
const tree = require('node:fs').readFileSync(process.env.NPM_LS_JSON, 'utf8')
new Promise((resolve, reject) => scarf.processDependencyTreeOutput(resolve, reject)(null, tree, ''))
  .then((info) => {
    scarf.getDependencyInfo = async () => info
    return scarf.reportPostInstall()
  })
  .then(
    () => console.log('\\n' + JSON.stringify({ reported: true })),
    (err) => console.log('\\n' + JSON.stringify({ reported: false, reason: err.message })),
  )
`

type NpmTree = { name: string; scarfSettings?: unknown; dependencies?: Record<string, NpmTree> }

describe('telemetry at install (@scarf/scarf)', () => {
  const received: string[] = []
  const server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`)
    req.resume()
    res.end()
  })
  const tmp = tempDir('cs-scarf-')
  let tree: NpmTree

  before(async () => {
    server.listen(0, 'localhost')
    await once(server, 'listening')
    // the installed tree, as scarf's postinstall asks npm for it
    const { stdout } = await run('npm', ['ls', '@scarf/scarf', '--json', '--long'], {
      cwd: REPO_ROOT,
      maxBuffer: 64 * 1024 * 1024,
    })
    tree = JSON.parse(stdout) as NpmTree
  })
  after(() => {
    server.close()
    tmp.remove()
  })

  async function scarfReport(given: NpmTree): Promise<{ reported: boolean; reason?: string }> {
    const file = path.join(tmp.dir, 'npm-ls.json')
    writeFileSync(file, JSON.stringify(given))
    const { stdout } = await run(process.execPath, ['-e', REPORT_WITH_TREE], {
      cwd: REPO_ROOT,
      // PATH and HOME only: none of scarf's switches (SCARF_ANALYTICS, DO_NOT_TRACK…) from ours,
      // so only package.json can opt out here
      env: childEnv({
        SCARF_REPORT_JS: REPORT,
        NPM_LS_JSON: file,
        INIT_CWD: REPO_ROOT,
        SCARF_LOCAL_PORT: String((server.address() as AddressInfo).port),
        // scarf keeps a log-throttling file in the temp directory
        TMPDIR: tmp.dir,
      }),
    })
    return JSON.parse(stdout.trim().split('\n').at(-1)!)
  }

  test('package.json opts out the way scarf documents', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))
    assert.deepEqual(pkg.scarfSettings, { enabled: false })
    assert.deepEqual(tree.scarfSettings, { enabled: false }, 'npm ls reads the root setting')
    assert.ok(tree.dependencies?.['swagger-ui-dist']?.dependencies?.['@scarf/scarf'], 'scarf is installed')
  })

  test('the installed scarf reports nothing for the installed tree', async () => {
    const outcome = await scarfReport(tree)
    assert.equal(outcome.reported, false)
    assert.match(outcome.reason ?? '', /disabled via a package\.json|opted out/)
    assert.deepEqual(received, [])
  })

  test('without the setting, the same run reports the install (the check above can fail)', async () => {
    const { scarfSettings: _, ...optedIn } = tree
    const outcome = await scarfReport(optedIn)
    assert.deepEqual(outcome, { reported: true })
    assert.deepEqual(received, ['POST /package-event/install'])
  })
})
