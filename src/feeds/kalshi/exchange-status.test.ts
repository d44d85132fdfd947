// Tests of the exchange status and schedule: the flags (also from an error answer), and which pauses
// the venue scheduled, in New York time across daylight saving.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { inWeeklyPause, isScheduledPause, parseExchangeStatus, parseSchedule } from './exchange-status.ts'

describe('parseExchangeStatus', () => {
  it('reads the flags; trading is active only while the exchange is', () => {
    assert.deepEqual(parseExchangeStatus({ exchange_active: true, trading_active: true }), {
      ok: true,
      value: { exchangeActive: true, tradingActive: true, resumeAt: null },
    })
    assert.deepEqual(
      parseExchangeStatus({
        exchange_active: false,
        trading_active: true,
        exchange_estimated_resume_time: '2026-03-05T10:00:00Z',
      }),
      {
        ok: true,
        value: { exchangeActive: false, tradingActive: false, resumeAt: Date.parse('2026-03-05T10:00:00Z') },
      },
    )
  })

  it('lets the crypto engine’s own flags decide when the venue lists one per engine', () => {
    const engines = (
      crypto: Record<string, unknown>,
      other = { exchange_index: 1, trading_active: true },
    ) => ({
      exchange_active: true,
      trading_active: true,
      exchange_index_statuses: [other, crypto],
    })
    const trading = (body: unknown) => {
      const status = parseExchangeStatus(body)
      assert.ok(status.ok)
      return status.value.tradingActive
    }
    // the crypto engine paused alone: the top-level flags still say trading
    assert.equal(trading(engines({ exchange_index: 2, exchange_active: true, trading_active: false })), false)
    // the index as a string, or only the name (the entry's shape is uncertain)
    assert.equal(trading(engines({ exchange_index: '2', trading_active: false })), false)
    assert.equal(trading(engines({ name: 'Crypto', trading_active: false })), false)
    assert.equal(trading(engines({ exchange_index: 2, exchange_active: false, trading_active: true })), false)
    // another engine paused, and the top level with it: the crypto engine still trades
    assert.equal(
      trading({
        exchange_active: true,
        trading_active: false,
        exchange_index_statuses: [
          { exchange_index: 1, trading_active: false },
          { exchange_index: 2, trading_active: true },
        ],
      }),
      true,
    )
    // no readable crypto entry: the top-level flags, as without the list
    assert.equal(trading(engines({ exchange_index: 3, trading_active: false })), true)
    assert.equal(trading({ ...engines({ exchange_index: 2 }), trading_active: false }), false)
  })

  it('names the missing flag', () => {
    assert.deepEqual(parseExchangeStatus({ exchange_active: true }), { ok: false, field: 'trading_active' })
    assert.deepEqual(parseExchangeStatus('down'), { ok: false, field: 'exchange_status' })
  })
})

describe('scheduled pauses', () => {
  it('knows the weekly Thursday 03:00–05:00 ET pause in winter and in summer', () => {
    // Thursday 2026-03-05, EST (UTC−5): 03:00 ET = 08:00Z
    assert.equal(inWeeklyPause(Date.parse('2026-03-05T07:59:00Z')), false)
    assert.equal(inWeeklyPause(Date.parse('2026-03-05T08:00:00Z')), true)
    assert.equal(inWeeklyPause(Date.parse('2026-03-05T09:59:00Z')), true)
    assert.equal(inWeeklyPause(Date.parse('2026-03-05T10:00:00Z')), false)
    // Thursday 2026-07-02, EDT (UTC−4): 03:00 ET = 07:00Z
    assert.equal(inWeeklyPause(Date.parse('2026-07-02T07:30:00Z')), true)
    assert.equal(inWeeklyPause(Date.parse('2026-07-01T07:30:00Z')), false, 'a Wednesday')
  })

  it('reads listed maintenance windows and gaps in the standard hours', () => {
    const parsed = parseSchedule({
      schedule: {
        standard_hours: [
          {
            start_time: '2026-01-01T00:00:00Z',
            end_time: '2027-01-01T00:00:00Z',
            monday: [
              { open_time: '00:00', close_time: '12:00' },
              { open_time: '13:00', close_time: '24:00' },
            ],
            tuesday: [{ open_time: '00:00', close_time: '24:00' }],
          },
        ],
        maintenance_windows: [
          { start_datetime: '2026-03-03T15:00:00Z', end_datetime: '2026-03-03T16:00:00Z' },
        ],
      },
    })
    assert.ok(parsed.ok)
    const schedule = parsed.value
    // Monday 2026-03-02 12:30 ET = 17:30Z: between sessions
    assert.equal(isScheduledPause(schedule, Date.parse('2026-03-02T17:30:00Z')), true)
    assert.equal(isScheduledPause(schedule, Date.parse('2026-03-02T18:30:00Z')), false)
    // Tuesday: open all day, but for the listed window
    assert.equal(isScheduledPause(schedule, Date.parse('2026-03-03T15:30:00Z')), true)
    assert.equal(isScheduledPause(schedule, Date.parse('2026-03-03T16:30:00Z')), false)
    // a day the template leaves out is not read as closed
    assert.equal(isScheduledPause(schedule, Date.parse('2026-03-06T17:30:00Z')), false)
    // outside the template's validity nothing is inferred from it
    assert.equal(isScheduledPause(schedule, Date.parse('2027-03-02T17:30:00Z')), false)
    assert.equal(isScheduledPause(null, Date.parse('2026-03-02T17:30:00Z')), false)
  })

  const template = (days: Record<string, unknown>) => {
    const parsed = parseSchedule({
      schedule: {
        standard_hours: [{ start_time: '2026-01-01T00:00:00Z', end_time: '2027-01-01T00:00:00Z', ...days }],
        maintenance_windows: [],
      },
    })
    assert.ok(parsed.ok)
    return parsed.value
  }
  // Monday 2026-03-02 and Tuesday 2026-03-03, EST (ET = UTC−5)
  const et = (day: '02' | '03', hhmm: string) => Date.parse(`2026-03-${day}T${hhmm}:00-05:00`)

  it('reads a session crossing midnight as open on both sides of it', () => {
    const schedule = template({
      monday: [{ open_time: '08:00', close_time: '02:00' }],
      tuesday: [{ open_time: '08:00', close_time: '02:00' }],
    })
    assert.equal(isScheduledPause(schedule, et('02', '12:00')), false)
    assert.equal(isScheduledPause(schedule, et('02', '23:59')), false)
    assert.equal(isScheduledPause(schedule, et('03', '01:30')), false, 'Monday’s session runs on')
    assert.equal(isScheduledPause(schedule, et('03', '03:00')), true, 'the gap between the sessions')
    assert.equal(isScheduledPause(schedule, et('03', '08:00')), false)
  })

  it('reads a close at 00:00 or 24:00 as the end of the day', () => {
    for (const close of ['00:00', '24:00']) {
      const schedule = template({
        monday: [{ open_time: '06:00', close_time: close }],
        tuesday: [{ open_time: '00:00', close_time: close }],
      })
      assert.equal(isScheduledPause(schedule, et('02', '05:00')), true, close)
      assert.equal(isScheduledPause(schedule, et('02', '18:00')), false, close)
      assert.equal(isScheduledPause(schedule, et('02', '23:59')), false, close)
      assert.equal(isScheduledPause(schedule, et('03', '12:00')), false, `${close}: all of Tuesday`)
    }
  })

  it('takes nothing as scheduled from a template with a session that does not parse, and counts it', () => {
    for (const bad of [
      { open_time: 'noon', close_time: '24:00' },
      { open_time: '09:75', close_time: '17:00' },
      'x',
    ]) {
      const schedule = template({ monday: [bad], tuesday: [{ open_time: '00:00', close_time: '24:00' }] })
      assert.equal(schedule.unreadableTemplates, 1)
      assert.equal(schedule.standardHours.length, 0)
      assert.equal(isScheduledPause(schedule, et('02', '12:00')), false)
    }
  })

  it('refuses a body without the schedule object', () => {
    assert.deepEqual(parseSchedule({ hours: [] }), { ok: false, field: 'schedule' })
  })
})
