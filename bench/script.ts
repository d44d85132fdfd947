// How a one-off benchmark script ends: exit 0 when its main resolves; otherwise every helper
// process and service it started is killed, the error printed, and exit 1.
import { killAllHelpers } from './processes.ts'
import { killAllServices } from './service.ts'

export function runScript(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      killAllHelpers()
      killAllServices()
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
      process.exit(1)
    },
  )
}
