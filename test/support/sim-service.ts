// The real service as a client meets it: `contest-signals serve` on the seeded simulator at 60× (a
// virtual minute every wall second, so live contests gain signals while a test watches), away from
// the weekly pause, on a store of its own; the first start's bootstrap key is the client's key.
import { type ServiceProcess, startProcess } from './service-process.ts'
import { OFF_PAUSE_START } from './timeline.ts'
import { waitFor } from './wait.ts'

export type SimService = { service: ServiceProcess; url: string; key: string }

/**
 * Starts the service with `env` on top of the simulator's settings (DATABASE_URL and PORT are the
 * caller's), or with `restart` starts it again on the same store and port: `key` is then '' (the
 * store keeps the first start's key, and prints none).
 */
export async function startSimService(env: Record<string, string>, restart = false): Promise<SimService> {
  const service = startProcess(['serve'], {
    SIM_SEED: '23',
    SIM_SPEED: '60',
    SIM_START: OFF_PAUSE_START,
    LOG_LEVEL: 'info',
    SIM_BACKFILL_DAYS: '1',
    ...env,
  })
  try {
    const url = await service.url
    const key = restart ? '' : await service.bootstrapKey
    return { service, url, key }
  } catch (err) {
    // the caller never gets a service it could stop: stop it here, or it outlives the test file
    await service.kill('SIGKILL')
    throw err
  }
}

/**
 * The series' active contest once it has one. At 60× a contest lives 15 wall seconds, and between
 * one's expiry and the engine's next tick (late on a loaded machine) the series has none: 404. Asked
 * once a second, the pace the default bucket refills, so a small burst is not spent waiting.
 */
export async function activeContest(
  url: string,
  key: string,
  series = 'KXBTC15M',
): Promise<{ ticker: string; state: string }> {
  return waitFor(
    `an active contest on ${series}`,
    async () => {
      const res = await fetch(`${url}/v1/contests/active?series=${series}`, {
        headers: { Authorization: `Bearer ${key}` },
      })
      if (res.status !== 200) {
        await res.arrayBuffer()
        return undefined
      }
      return (await res.json()) as { ticker: string; state: string }
    },
    15_000,
    1000,
  )
}
