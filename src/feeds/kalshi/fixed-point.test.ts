// Tests of the fixed-point parsers: every accepted spelling of a price, and everything else refused.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { millionthsToCents, parseCountHundredths, parseDollarsMillionths } from './fixed-point.ts'

describe('parseDollarsMillionths', () => {
  it('reads 0 to 6 decimals as the same integer price', () => {
    for (const text of ['0.34', '0.3400', '0.340000', '0.340'])
      assert.equal(parseDollarsMillionths(text), 340_000)
    assert.equal(parseDollarsMillionths('1'), 1_000_000)
    assert.equal(parseDollarsMillionths('1.0000'), 1_000_000)
    assert.equal(parseDollarsMillionths('0.0010'), 1_000)
    assert.equal(parseDollarsMillionths('0.034567'), 34_567)
    assert.equal(parseDollarsMillionths('0.000001'), 1)
    assert.equal(parseDollarsMillionths('0'), 0)
  })

  it('refuses anything that is not a plain fixed-point string', () => {
    for (const bad of [
      '0.3400001',
      '-0.34',
      '+0.34',
      '.34',
      '0.',
      ' 0.34',
      '0.34 ',
      '3.4e-1',
      '0,34',
      '',
      'NaN',
      '0x10',
      '1234567890',
    ])
      assert.equal(parseDollarsMillionths(bad), null, bad)
    for (const bad of [0.34, null, undefined, {}, ['0.34']]) assert.equal(parseDollarsMillionths(bad), null)
  })
})

describe('parseCountHundredths', () => {
  it('reads counts with more decimals than documented, a positive count never as zero', () => {
    assert.equal(parseCountHundredths('703.360'), 70_336)
    assert.equal(parseCountHundredths('1.001'), 101)
    assert.equal(parseCountHundredths('0.001'), 1)
    assert.equal(parseCountHundredths('0.000000'), 0)
  })

  it('reads counts with up to 2 decimals', () => {
    assert.equal(parseCountHundredths('703.36'), 70_336)
    assert.equal(parseCountHundredths('13.00'), 1_300)
    assert.equal(parseCountHundredths('13'), 1_300)
    assert.equal(parseCountHundredths('0.5'), 50)
    assert.equal(parseCountHundredths('0.00'), 0)
  })

  it('refuses more decimals, signs and non-strings', () => {
    for (const bad of ['-1.00', '1e3', '', '1.', ' 1']) assert.equal(parseCountHundredths(bad), null, bad)
    assert.equal(parseCountHundredths(13), null)
  })
})

describe('millionthsToCents', () => {
  it('keeps sub-cent ticks on the cent scale', () => {
    assert.equal(millionthsToCents(35_000), 3.5)
    assert.equal(millionthsToCents(34_567), 3.4567)
    assert.equal(millionthsToCents(420_000), 42)
    assert.equal(millionthsToCents(1_000_000), 100)
  })
})
