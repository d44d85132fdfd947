import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, it } from 'node:test'
import type { ApiKeyRecord } from '../domain/api-key.ts'
import type { Store } from '../ports/store.ts'
import { announceBootstrapKey, BootstrapKeyError } from './bootstrap-key.ts'

const clock = { now: () => 1_800_000_000_000 }
const quiet = { logger: { info: () => {} }, terminal: null }

/** The two store calls the bootstrap makes; `createKey` as given. */
function keyStore(createKey: (r: ApiKeyRecord) => Promise<void>): { store: Store; kept: ApiKeyRecord[] } {
  const kept: ApiKeyRecord[] = []
  const store = {
    listKeys: async () => kept,
    createKey: async (r: ApiKeyRecord) => {
      await createKey(r)
      kept.push(r)
    },
  } as unknown as Store
  return { store, kept }
}

function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cs-bootstrap-'))
  return run(dir).finally(() => rmSync(dir, { recursive: true, force: true }))
}

describe('announceBootstrapKey', () => {
  it('writes the 0600 file, in directories it makes, before storing the key it names', () =>
    withDir(async (dir) => {
      const file = path.join(dir, 'a', 'b', 'key.txt')
      let fileAtStore = false
      const { store, kept } = keyStore(async () => {
        fileAtStore = existsSync(file)
      })
      await announceBootstrapKey(store, 'http://x', 'KXBTC15M', clock, { file, ...quiet })
      assert.ok(fileAtStore, 'the file existed when the key was stored')
      assert.equal(kept.length, 1)
      assert.equal(statSync(file).mode & 0o777, 0o600)
      assert.ok(readFileSync(file, 'utf8').includes(kept[0]!.prefix))
    }))

  it('takes the file back and names BOOTSTRAP_KEY_FILE when the store refuses the key', () =>
    withDir(async (dir) => {
      const file = path.join(dir, 'key.txt')
      const { store, kept } = keyStore(async () => {
        throw new Error('SQLITE_FULL: database or disk is full')
      })
      await assert.rejects(
        announceBootstrapKey(store, 'http://x', 'KXBTC15M', clock, { file, ...quiet }),
        (err: unknown) =>
          err instanceof BootstrapKeyError &&
          err.exitCode === 1 &&
          /could not be stored \(SQLITE_FULL.*BOOTSTRAP_KEY_FILE=.*key\.txt was removed/.test(err.message),
      )
      assert.equal(existsSync(file), false)
      assert.equal(kept.length, 0)
    }))

  it('does nothing when the store already holds a key', () =>
    withDir(async (dir) => {
      const file = path.join(dir, 'key.txt')
      const { store } = keyStore(async () => {})
      await announceBootstrapKey(store, 'http://x', 'KXBTC15M', clock, { file, ...quiet })
      rmSync(file)
      await announceBootstrapKey(store, 'http://x', 'KXBTC15M', clock, { file, ...quiet })
      assert.equal(existsSync(file), false)
    }))
})
