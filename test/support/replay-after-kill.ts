// `contest-signals replay` run again on the store of a replay that was killed (SIGKILL): until the
// killed run's lease runs out the store is an engine's, and each try must say so.
import assert from 'node:assert/strict'
import { runCli } from './service-process.ts'

const LEASE_HELD =
  'contest-signals replay: another engine holds this store’s lease: stop it before replaying into this store (a replay killed less than 6 s ago still holds it: run this again then)'

/** Runs `args` until the killed run's lease has lapsed, and returns the run that went on. */
export async function replayAgainAfterKill(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let goOn = await runCli(args, env)
  for (let tries = 1; goOn.code === 1 && tries < 30; tries++) {
    assert.equal(
      goOn.stderr.split('\n').find((l) => l.startsWith('contest-signals replay:')),
      LEASE_HELD,
    )
    goOn = await runCli(args, env)
  }
  return goOn
}
