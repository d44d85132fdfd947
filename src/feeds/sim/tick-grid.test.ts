// Tests of KXBTC15M's tapered grid: 0.1 ¢ below 10 ¢ and from 90 ¢ up, 1 ¢ in between.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ceilToGrid, floorToGrid, isOnGrid, stepDown, stepUp, tickAt } from './tick-grid.ts'

describe('the tapered grid', () => {
  it('has 0.1 ¢ steps near 0 and 100 and 1 ¢ steps between', () => {
    assert.equal(tickAt(5_000), 1_000)
    assert.equal(tickAt(500_000), 10_000)
    assert.equal(tickAt(950_000), 1_000)
    assert.ok(isOnGrid(99_000) && isOnGrid(100_000) && isOnGrid(110_000) && isOnGrid(994_000))
    assert.ok(!isOnGrid(101_000) && !isOnGrid(555_000) && !isOnGrid(1_500) && !isOnGrid(-1_000))
  })

  it('rounds to the grid and steps across the 10 ¢ and 90 ¢ marks', () => {
    assert.equal(floorToGrid(345_678), 340_000)
    assert.equal(ceilToGrid(345_678), 350_000)
    assert.equal(floorToGrid(3_456), 3_000)
    assert.equal(ceilToGrid(993_456), 994_000)
    assert.equal(stepUp(99_000), 100_000)
    assert.equal(stepUp(100_000), 110_000)
    assert.equal(stepDown(100_000), 99_000)
    assert.equal(stepUp(890_000), 900_000)
    assert.equal(stepUp(900_000), 901_000)
    assert.equal(stepDown(900_000), 890_000)
  })
})
