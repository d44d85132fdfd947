// A sandbox tape written by the real CLI, for tests whose subject reads tapes (a fit, a judging tool).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { childEnv } from './service-process.ts'

const CLI = path.join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts')

/**
 * One day of the Polymarket sandbox from `from`, as `sim tape --venue polymarket` writes it to `out`;
 * `simParams`: the sandbox's settings (SIM_PARAMS, a crowd preset), else its default crowd.
 */
export function writePolymarketDayTape(
  out: string,
  seed: number,
  from = '2026-10-01T00:00:00Z',
  simParams?: string,
): void {
  const made = spawnSync(
    process.execPath,
    [
      CLI,
      'sim',
      'tape',
      '--venue',
      'polymarket',
      '--days',
      '1',
      '--seed',
      String(seed),
      '--from',
      from,
      '--out',
      out,
    ],
    { encoding: 'utf8', env: childEnv(simParams ? { SIM_PARAMS: simParams } : {}) },
  )
  assert.equal(made.status, 0, made.stderr)
}
