// close() leaves nothing running: a process that starts the feed and closes it exits by itself.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { within } from './support/wait.ts'

const SCRIPT = fileURLToPath(new URL('./support/spot-feed-lifecycle.ts', import.meta.url))

describe('createSpotFeed › close', () => {
  it('leaves no timers or sockets behind: the process exits on its own', async () => {
    const child = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
    try {
      const code = await within(exited, 'the process to exit on its own', 20_000)
      assert.equal(code, 0, `child did not exit cleanly: ${err}`)
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
    assert.equal(out.trim(), 'spot 68433.15')
  })
})
