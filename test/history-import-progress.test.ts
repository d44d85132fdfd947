// The progress bar of `history import` is for a terminal: on a TTY stderr it draws days done over
// itself and clears before the summary; the summary line goes to stdout either way.
import assert from 'node:assert/strict'
import path from 'node:path'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { runHistoryImport } from '../src/cli/history-import-command.ts'
import { loadConfig } from '../src/config/config.ts'
import { type HistoryFixture, startHistoryFixture } from './fixtures/history-fixtures.ts'
import { tempDir } from './support/service-process.ts'

const D1 = Date.UTC(2026, 5, 10)

function capture(isTTY: boolean) {
  let text = ''
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk)
      done()
    },
  }) as Writable & { isTTY?: boolean }
  stream.isTTY = isTTY
  return { stream, text: () => text }
}

describe('history import progress on a terminal', () => {
  const tmp = tempDir()
  let fixture: HistoryFixture
  before(async () => {
    fixture = await startHistoryFixture({ days: [D1], contestHours: [10, 11], cutoff: D1 + 30 * 86_400_000 })
  })
  after(async () => {
    await fixture.close()
    tmp.remove()
  })

  it('draws the bar over itself on a TTY, clears it, and prints the summary on stdout', async () => {
    const stdout = capture(false)
    const stderr = capture(true)
    const code = await runHistoryImport(
      loadConfig({ ...fixture.env, LOG_LEVEL: 'silent' }),
      {
        venue: 'kalshi',
        series: undefined,
        since: '2026-06-10',
        until: '2026-06-11',
        out: path.join(tmp.dir, 'tapes'),
        sources: undefined,
      },
      { stdout: stdout.stream, stderr: stderr.stream, now: () => Date.now() },
    )
    assert.equal(code, 0, stderr.text())
    const clearLine = '\r\x1b[K'
    assert.ok(stderr.text().startsWith(`${clearLine}[${'-'.repeat(24)}] 0/1 days, 2026-06-10, 0 requests`))
    assert.ok(stderr.text().endsWith(clearLine), JSON.stringify(stderr.text().slice(-40)))
    assert.doesNotMatch(stderr.text(), /\n/)
    assert.match(stdout.text(), /^history import kalshi KXBTC15M .*: 1 day written, 0 skipped/)
  })
})
