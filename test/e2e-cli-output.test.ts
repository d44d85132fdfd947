// What becomes of a command's output when stdout cannot take it (decisions §2: one line, never a
// stack trace): a new key is never left active unseen, a reader that went away or a full disk end
// the command non-zero with at most one line.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { runCli, runCliInto, tempDir } from './support/service-process.ts'

type KeyRow = { label: string; revoked_at: string | null }

describe('contest-signals output that cannot be written', () => {
  const tmp = tempDir()
  const env = { DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}` }
  after(() => tmp.remove())

  it('keys create never leaves a key no one saw: refused on /dev/null, revoked when stdout fails', async () => {
    assert.equal((await runCli(['keys', 'create', '--label', 'seen'], env)).code, 0)
    const before = (JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as unknown[]).length
    const discarded = await runCliInto(['keys', 'create', '--label', 'lost'], env, '/dev/null')
    assert.equal(discarded.code, 2)
    assert.match(
      discarded.stderr,
      /stdout, which goes to \/dev\/null \(or was closed\): no key was created\n$/,
    )
    const full = await runCliInto(['keys', 'create', '--label', 'full'], env, '/dev/full')
    assert.equal(full.code, 1)
    const said = full.stderr
      .trimEnd()
      .split('\n')
      .filter((l) => !l.startsWith('contest-signals: store '))
    assert.equal(said.length, 1, full.stderr)
    assert.match(
      said[0]!,
      /^contest-signals: keys create could not print the new key \(ENOSPC\); key key_\w+ was revoked$/,
    )
    const keys = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as KeyRow[]
    assert.equal(keys.length, before + 1, 'no key for the /dev/null run')
    assert.notEqual(keys.find((k) => k.label === 'full')?.revoked_at ?? null, null)
  })

  it('a command whose reader goes away, or whose disk is full, ends non-zero with at most one line, never a trace', async () => {
    const gone = await runCliInto(['keys', 'list', '--json'], env, 'closed-pipe')
    assert.equal(gone.code, 1)
    assert.match(gone.stderr, /^(contest-signals: store .*\n)?$/)
    const full = await runCliInto(['keys', 'list', '--json'], env, '/dev/full')
    assert.equal(full.code, 1)
    assert.match(
      full.stderr,
      /^(contest-signals: store .*\n)?contest-signals: cannot write the output: ENOSPC\n$/,
    )
  })
})
