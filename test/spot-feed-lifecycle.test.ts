// close() leaves nothing running: a process that starts the feed and closes it exits by itself.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const SCRIPT = fileURLToPath(new URL('./support/spot-feed-lifecycle.ts', import.meta.url))

describe('createSpotFeed › close', () => {
  it('leaves no timers or sockets behind: the process exits on its own', async () => {
    const child = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const killer = setTimeout(() => child.kill('SIGKILL'), 8_000)
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
    clearTimeout(killer)
    assert.equal(code, 0, `child did not exit cleanly: ${err}`)
    assert.equal(out.trim(), 'spot 68433.15')
  })
})
