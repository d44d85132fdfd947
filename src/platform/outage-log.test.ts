// The outage log's lines on a manual clock: a start, at most one line a minute, an end; and with
// `steadyMs`, a recovery that fails again within it is the same outage (a flapping socket).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createOutageLog } from './outage-log.ts'

function recorded(steadyMs?: number) {
  let t = 1_000_000
  const lines: { fields: Record<string, unknown>; message: string }[] = []
  const push = (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message })
  const log = createOutageLog(
    { now: () => t },
    {
      what: 'the socket',
      started: 'the socket ended',
      fail: push,
      recover: push,
      ...(steadyMs === undefined ? {} : { steadyMs }),
    },
  )
  return {
    log,
    lines,
    messages: () => lines.map((l) => l.message),
    advance(ms: number) {
      t += ms
    },
  }
}

describe('outage log', () => {
  it('logs the start with the error, a count at most once a minute, and the end on the next success', () => {
    const r = recorded()
    const err = new Error('refused')
    for (let i = 0; i < 10; i++) {
      r.log.failed(err)
      r.advance(5_000)
    }
    assert.deepEqual(r.lines[0], { fields: { err }, message: 'the socket ended' })
    assert.equal(r.lines.length, 1)
    r.advance(10_000)
    r.log.failed(err)
    assert.equal(r.lines.length, 2)
    assert.equal(r.lines[1]!.message, 'the socket still failing: 10 failed attempts since the last line')
    r.log.succeeded()
    assert.equal(r.lines[2]!.message, 'the socket recovered after 11 failed attempts over 60 s')
    r.log.succeeded()
    assert.equal(r.lines.length, 3)
  })

  it('with steadyMs, counts a flap as the same outage until the attempt has kept succeeding that long', () => {
    const r = recorded(60_000)
    const err = new Error('closed by peer')
    // thirty flaps, each up 10 s then down again 10 s later: one start line, one count a minute
    for (let flap = 0; flap < 30; flap++) {
      r.log.failed(err)
      r.advance(10_000)
      r.log.succeeded()
      r.advance(10_000)
      r.log.succeeded()
    }
    assert.equal(r.messages()[0], 'the socket ended')
    assert.ok(r.lines.length <= 11, `${r.lines.length} lines for 30 flaps over 10 minutes`)
    assert.ok(
      r
        .messages()
        .slice(1)
        .every((m) => /^the socket still failing: \d+ failed attempts/.test(m)),
    )
    assert.ok(!r.messages().some((m) => /recovered/.test(m)), 'no recovery while it keeps dropping')

    // up again for good: the end line once it has stayed up a minute, naming the flaps and the time up
    r.log.failed(err)
    const before = r.lines.length
    r.advance(5_000)
    r.log.succeeded() // up from here
    r.advance(59_000)
    r.log.succeeded()
    assert.equal(r.lines.length, before, 'not steady yet')
    r.advance(1_000)
    r.log.succeeded()
    assert.equal(r.lines.length, before + 1)
    const end = r.lines.at(-1)!
    assert.equal(
      end.message,
      'the socket recovered after 31 failed attempts over 605 s (30 brief recoveries that failed again; up 60 s since)',
    )
    assert.deepEqual(end.fields, { failures: 31, downSeconds: 605, flaps: 30, upSeconds: 60 })
    r.log.succeeded()
    assert.equal(r.lines.length, before + 1, 'once')
  })
})
