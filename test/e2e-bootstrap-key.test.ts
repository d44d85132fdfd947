// The bootstrap key can never be lost (decisions §2): its file is written first, never over an
// existing one, and a start that cannot hand the key over stops at once with one line naming
// BOOTSTRAP_KEY_FILE — leaving no key in the store that nobody was shown.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { runCli, startProcess, tempDir } from './support/service-process.ts'
import { OFF_PAUSE_START } from './support/timeline.ts'

function envFor(dir: string, keyFile: string): Record<string, string> {
  return {
    DATABASE_URL: `sqlite:${path.join(dir, 'cs.db')}`,
    BOOTSTRAP_KEY_FILE: keyFile,
    PORT: '0',
    SIM_SEED: '11',
    SIM_START: OFF_PAUSE_START,
    SIM_BACKFILL_DAYS: '0',
    LOG_LEVEL: 'info',
  }
}

/** The keys the store holds, as `keys list --json` prints them. */
async function storedKeys(env: Record<string, string>): Promise<unknown[]> {
  const listed = await runCli(['keys', 'list', '--json'], env)
  assert.equal(listed.code, 0, listed.stderr)
  return JSON.parse(listed.stdout) as unknown[]
}

describe('the bootstrap key file', () => {
  it('is never replaced: an existing file stops the start with exit 2 and one line, and no key is stored', async () => {
    const tmp = tempDir()
    try {
      const file = path.join(tmp.dir, 'bootstrap-key.txt')
      writeFileSync(file, 'an earlier key, kept by the operator\n')
      const env = envFor(tmp.dir, file)
      const started = startProcess(['serve'], env)
      const { code } = await started.exited
      assert.equal(code, 2)
      const lines = started.stderr().trim().split('\n')
      assert.equal(lines.length, 1, started.stderr())
      assert.match(lines[0]!, /BOOTSTRAP_KEY_FILE=.*bootstrap-key\.txt: the file already exists/)
      assert.equal(readFileSync(file, 'utf8'), 'an earlier key, kept by the operator\n')
      assert.deepEqual(await storedKeys(env), [])
      // stopped before anything was written: no timeline fixed, so another seed starts on this store
      assert.ok(!started.stdout().includes('api listening'), 'never listened')
      assert.ok(!started.stdout().includes('engine started'), 'never started the engine')
      const other = { ...env, SIM_SEED: '12', BOOTSTRAP_KEY_FILE: path.join(tmp.dir, 'key-2.txt') }
      const next = startProcess(['serve'], other)
      await next.bootstrapKey
      assert.equal((await next.kill('SIGTERM')).code, 0)
    } finally {
      tmp.remove()
    }
  })

  it('in a directory that cannot be made stops at once with one line, stores no key, and the next start makes one', async () => {
    const tmp = tempDir()
    try {
      // /proc refuses new directories: Node's recursive mkdir spins forever there
      const env = envFor(tmp.dir, '/proc/1/nope/key.txt')
      const started = startProcess(['serve'], env)
      const { code } = await started.exited
      assert.equal(code, 1)
      assert.match(
        started.stderr().trim(),
        /^contest-signals: cannot write BOOTSTRAP_KEY_FILE=\/proc\/1\/nope\/key\.txt: its directory cannot be created \(ENOENT/,
      )
      assert.deepEqual(await storedKeys(env), [])

      const fixed = { ...env, BOOTSTRAP_KEY_FILE: path.join(tmp.dir, 'keys', 'bootstrap-key.txt') }
      const second = startProcess(['serve'], fixed)
      try {
        await second.url
        const key = await second.bootstrapKey
        assert.match(key, /^cs_/)
        assert.equal((await storedKeys(fixed)).length, 1)
      } finally {
        await second.kill('SIGTERM')
      }
    } finally {
      tmp.remove()
    }
  })
})
