// The dashboard's reading of the service's clock: "time left" on a simulator at 60× must run at 60×,
// and answers whose round trips leave their stamping instants uncertain (close together, or slow on a
// busy machine) must not set a speed they cannot measure.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createServerClock, RATE_SPAN_MS, RATE_TOLERANCE } from '../web/dashboard/server-clock.ts'

const T0 = Date.parse('2026-09-25T19:00:00Z')

describe("the dashboard's reading of the service's clock", () => {
  it('reads the page clock until the service has answered', () => {
    assert.equal(createServerClock().now(T0), T0)
  })

  it('places an answer at the middle of its round trip and extrapolates at the wall pace until a speed is measured', () => {
    const clock = createServerClock()
    clock.observe(T0 + 3_600_000, 900, 1100)
    assert.equal(clock.rate, null)
    assert.equal(clock.now(1500), T0 + 3_600_000 + 500)
  })

  it('ignores the speed two answers a few milliseconds apart would give', () => {
    const clock = createServerClock()
    // at 60×, 20 ms of page time is 1.2 s of service time; 100 ms of stamping delay on the first
    // answer makes that pair say 360× (or, the other way round, a clock that stands still)
    clock.observe(T0, 1000, 1000)
    clock.observe(T0 + 7200, 1020, 1020)
    assert.equal(clock.rate, null)
    assert.equal(clock.now(1020), T0 + 7200)
  })

  it("measures a simulator's speed across a span of page time, within the tolerance its round trips allow", () => {
    const clock = createServerClock()
    clock.observe(T0, 990, 1010)
    // 2.25 s later at 60×, stamped 40 ms before it arrived after a 50 ms round trip: read as stamped
    // when it arrived, it would say 58.9×; at the middle of its trip, 59.6×
    const receivedAt = 1000 + RATE_SPAN_MS + 250
    clock.observe(T0 + 60 * (receivedAt - 40 - 1000), receivedAt - 50, receivedAt)
    assert.equal(clock.rate, 60)
    const fresh = createServerClock()
    fresh.observe(T0, 1000, 1000)
    fresh.observe(T0 + 60 * 10_000, 11_000, 11_000)
    assert.equal(fresh.rate, 60)
    // a contest 15 service minutes long is closed 15 page seconds later, with no answer in between
    assert.ok(fresh.now(11_000 + 15_000) >= T0 + 60 * 10_000 + 15 * 60_000)
  })

  it('waits for a longer span when slow round trips could put the speed more than the tolerance out', () => {
    const clock = createServerClock()
    // a busy machine: 600 ms round trips, the service stamping each answer at the start of its trip
    // (the worst case), which over 2.5 s makes 60× look like 48×
    const answer = (askedAt: number) => clock.observe(T0 + 60 * (askedAt - 1000), askedAt, askedAt + 600)
    answer(1000)
    answer(3500)
    assert.equal(clock.rate, null, 'a 2.5 s span with 600 ms round trips is not measured')
    // the round trips bound the error by (300 + 300) / span: within the tolerance from 12 s on
    const longEnough = 1000 + (300 + 300) / RATE_TOLERANCE
    answer(longEnough)
    assert.ok(clock.rate !== null && Math.abs(clock.rate - 60) <= 60 * RATE_TOLERANCE, `${clock.rate}`)
  })

  it("keeps the wall clock's pace on a service that keeps it", () => {
    const clock = createServerClock()
    clock.observe(T0, 990, 1010)
    clock.observe(T0 + 10_030, 10_990, 11_010)
    assert.equal(clock.rate, 1)
  })

  it('keeps the last speed when the service clock steps back or an answer has no time', () => {
    const clock = createServerClock()
    clock.observe(T0, 1000, 1000)
    clock.observe(T0 + 60 * 10_000, 11_000, 11_000)
    clock.observe(T0, 21_000, 21_000)
    assert.equal(clock.rate, 60)
    clock.observe(Number.NaN, 31_000, 31_000)
    assert.equal(clock.now(21_000), T0)
  })
})
