// The dashboard's reading of the service's clock: "time left" on a simulator at 60× must run at 60×,
// and two health answers close together (whose stamping noise says nothing of a speed) must not set it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createServerClock, RATE_SPAN_MS } from '../web/dashboard/server-clock.ts'

const T0 = Date.parse('2026-09-25T19:00:00Z')

describe("the dashboard's reading of the service's clock", () => {
  it('reads the page clock until the service has answered', () => {
    assert.equal(createServerClock().now(T0), T0)
  })

  it('extrapolates from the last answer at the wall pace until a speed is measured', () => {
    const clock = createServerClock()
    clock.observe(T0 + 3_600_000, 1000)
    assert.equal(clock.rate, null)
    assert.equal(clock.now(1500), T0 + 3_600_000 + 500)
  })

  it('ignores the speed two answers a few milliseconds apart would give', () => {
    const clock = createServerClock()
    // at 60×, 20 ms of page time is 1.2 s of service time; 100 ms of stamping delay on the first
    // answer makes that pair say 360× (or, the other way round, a clock that stands still)
    clock.observe(T0, 1000)
    clock.observe(T0 + 7200, 1020)
    assert.equal(clock.rate, null)
    assert.equal(clock.now(1020), T0 + 7200)
  })

  it("measures a simulator's speed across a span of page time, however noisy the answers in it", () => {
    const clock = createServerClock()
    clock.observe(T0, 1000)
    clock.observe(T0 + 7200, 1020)
    // 2.25 s later at 60×, this answer stamped 100 ms before it arrived
    const localAt = 1000 + RATE_SPAN_MS + 250
    clock.observe(T0 + 60 * (localAt - 100 - 1000), localAt)
    assert.equal(clock.rate, 57)
    const fresh = createServerClock()
    fresh.observe(T0, 1000)
    fresh.observe(T0 + 60 * 10_000, 11_000)
    assert.equal(fresh.rate, 60)
    // a contest 15 service minutes long is closed 15 page seconds later, with no answer in between
    assert.ok(fresh.now(11_000 + 15_000) >= T0 + 60 * 10_000 + 15 * 60_000)
  })

  it("keeps the wall clock's pace on a service that keeps it", () => {
    const clock = createServerClock()
    clock.observe(T0, 1000)
    clock.observe(T0 + 10_030, 11_000)
    assert.equal(clock.rate, 1)
  })

  it('keeps the last speed when the service clock steps back or an answer has no time', () => {
    const clock = createServerClock()
    clock.observe(T0, 1000)
    clock.observe(T0 + 60 * 10_000, 11_000)
    clock.observe(T0, 21_000)
    assert.equal(clock.rate, 60)
    clock.observe(Number.NaN, 31_000)
    assert.equal(clock.now(21_000), T0)
  })
})
