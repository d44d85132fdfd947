// clients/typescript built the way its README tells a bot author, from the files the repository
// holds and nothing else: a fresh clone has no node_modules at its root, so the client's own
// install must bring the compiler its prepack runs. The directory is copied outside the repository
// (no ancestor node_modules/.bin lends it a tsc) and the README's commands run there, offline: the
// client's lockfile pins the compiler the repository's lockfile already holds in the npm cache.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cpSync, existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { nodeEnv } from './support/packed-install.ts'
import { REPO_ROOT, tempDir } from './support/service-process.ts'

const run = promisify(execFile)
const CLIENT = path.join(REPO_ROOT, 'clients/typescript')
/** what a clone holds: neither a local install nor a build */
const NOT_IN_A_CLONE = new Set(['node_modules', 'dist'])

describe('the typed client built from a fresh clone, as its README says', () => {
  const tmp = tempDir('cs-client-clone-')
  after(() => tmp.remove())

  it('installs its compiler from its own lockfile and packs built JavaScript with declarations', async () => {
    const readme = readFileSync(path.join(CLIENT, 'README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('## Install and build'))
    assert.match(section, /`npm ci` here, then `npm pack`/)

    const copy = path.join(tmp.dir, 'typescript')
    cpSync(CLIENT, copy, {
      recursive: true,
      filter: (src) => !NOT_IN_A_CLONE.has(path.basename(src)) && !src.endsWith('.tgz'),
    })
    const npm = (args: string[]) =>
      run('npm', args, { cwd: copy, env: nodeEnv(), maxBuffer: 16 * 1024 * 1024 })
    await npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'])
    const packed = JSON.parse((await npm(['pack', '--json'])).stdout) as { files: { path: string }[] }[]
    const files = packed[0]!.files.map((f) => f.path)
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/generated/api-types.d.ts'])
      assert.ok(files.includes(file), `${file} in ${files.join(' ')}`)
    assert.ok(existsSync(path.join(copy, 'contest-signals-client-1.0.0.tgz')))
  })
})
