// The weekly window in New York time: read from its setting's text, and matched across daylight
// saving and across midnight.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { inWeeklyWindow, parseWeeklyWindow } from './weekly-window.ts'

describe('weekly window', () => {
  it('reads a weekday, a New York time and minutes; refuses anything else', () => {
    assert.deepEqual(parseWeeklyWindow('tuesday 07:00 5'), { weekday: 2, startMinute: 420, minutes: 5 })
    assert.deepEqual(parseWeeklyWindow('Sun 23:58 4'), { weekday: 0, startMinute: 1438, minutes: 4 })
    for (const bad of ['tuesday 7:00 5', 'someday 07:00 5', 'tuesday 24:00 5', 'tuesday 07:00 0', 'tuesday'])
      assert.equal(parseWeeklyWindow(bad), null, bad)
  })

  it('matches the window in New York time, in winter and in summer', () => {
    const w = parseWeeklyWindow('tuesday 07:00 5')!
    // Tuesday 2026-03-03, EST (UTC−5): 07:00 ET = 12:00Z
    assert.equal(inWeeklyWindow(w, Date.parse('2026-03-03T11:59:59Z')), false)
    assert.equal(inWeeklyWindow(w, Date.parse('2026-03-03T12:00:00Z')), true)
    assert.equal(inWeeklyWindow(w, Date.parse('2026-03-03T12:04:59Z')), true)
    assert.equal(inWeeklyWindow(w, Date.parse('2026-03-03T12:05:00Z')), false)
    // Tuesday 2026-07-07, EDT (UTC−4): 07:00 ET = 11:00Z
    assert.equal(inWeeklyWindow(w, Date.parse('2026-07-07T11:02:00Z')), true)
    assert.equal(inWeeklyWindow(w, Date.parse('2026-07-08T11:02:00Z')), false, 'a Wednesday')
  })

  it('runs on past midnight, and past the end of the week', () => {
    const w = parseWeeklyWindow('saturday 23:58 4')!
    // Saturday 2026-03-07 23:59 EST = Sunday 04:59Z; Sunday 00:01 EST = 05:01Z
    assert.equal(inWeeklyWindow(w, Date.parse('2026-03-08T04:59:00Z')), true)
    assert.equal(inWeeklyWindow(w, Date.parse('2026-03-08T05:01:00Z')), true)
    assert.equal(inWeeklyWindow(w, Date.parse('2026-03-08T05:02:00Z')), false)
  })
})
