// Property-based hostile input against a live server (fast-check): whatever arrives, the answer is
// below 500, every error is a well-formed problem whose status is the HTTP status, the server keeps
// answering and the settled history is unchanged. A short run here; `npm run fuzz` runs 10,000+
// cases. Every run prints its seed: FUZZ_SEED=<seed> replays it.
import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { newSeries, seedHistory, seedLiveContest } from './support/contest-fixtures.ts'
import { checkAnswer, hostileRequest, rawGarbage, send, sendRaw } from './support/hostile-input.ts'
import { FUZZ_RUNS, FUZZ_SEED } from './support/long-runs.ts'
import { useTestWorld } from './support/test-world.ts'

const series = newSeries()
const { world } = useTestWorld({ env: { TRUST_PROXY: '127.0.0.1' } }, async (w) => {
  await seedHistory(w.store, series, 30)
  await seedLiveContest(w.store, series)
})

const seed = FUZZ_SEED ?? randomInt(1, 2 ** 31)

/** fc.assert, with the report cut short: a counterexample may carry 100 KB of input. */
async function check<T>(property: fc.IAsyncPropertyWithHooks<[T]>, numRuns: number): Promise<void> {
  try {
    await fc.assert(property, { numRuns, seed })
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    throw new Error(`${message.slice(0, 4000)}${message.length > 4000 ? ' […]' : ''}`)
  }
}

async function history(): Promise<string> {
  const res = await fetch(`${world.baseUrl}/v1/contests?series=${series}&limit=100`, {
    headers: { Authorization: `Bearer ${world.key}` },
  })
  assert.equal(res.status, 200)
  return res.text()
}

async function stillUp(): Promise<void> {
  const res = await fetch(`${world.baseUrl}/v1/health`)
  assert.equal(res.status, 200)
}

describe('hostile input (property-based, live server)', () => {
  it(`answers every hostile request below 500 with a well-formed problem (${FUZZ_RUNS} cases, seed ${seed})`, async () => {
    process.stdout.write(
      `# fuzz: ${FUZZ_RUNS} request cases, seed ${seed} (replay: FUZZ_SEED=${seed} npm run fuzz)\n`,
    )
    const before = await history()
    let n = 0
    await check(
      fc.asyncProperty(hostileRequest(world.key), async (req) => {
        checkAnswer(await send(world.baseUrl, req), req.method)
        if (++n % 500 === 0) await stillUp()
      }),
      FUZZ_RUNS,
    )
    await stillUp()
    assert.equal(await history(), before, 'the settled history is unchanged')
  })

  it(`answers raw garbage on the socket with a problem or a close, never 5xx (${Math.ceil(FUZZ_RUNS / 5)} cases, seed ${seed})`, async () => {
    const before = await history()
    await check(
      fc.asyncProperty(rawGarbage, async (bytes) => {
        const answer = await sendRaw(world.baseUrl, bytes)
        if (answer !== null)
          checkAnswer(answer, bytes.subarray(0, 5).toString('latin1') === 'HEAD ' ? 'HEAD' : 'GET')
      }),
      Math.ceil(FUZZ_RUNS / 5),
    )
    await stillUp()
    assert.equal(await history(), before, 'the settled history is unchanged')
  })
})
