// What a helper process reads of the service it stands beside, from the environment startHelper
// gives it (bench/processes.ts). Kept apart from the settings module so a bare baseline loads nothing
// of the service.

/** The service's keep-alive timeout in ms, so a bare server's `Keep-Alive` header is the service's. */
export function serviceKeepAliveMs(): number {
  const seconds = Number(process.env.HTTP_KEEP_ALIVE_TIMEOUT_S)
  if (!(seconds > 0))
    throw new Error('HTTP_KEEP_ALIVE_TIMEOUT_S is not set: start this helper through startHelper')
  return seconds * 1000
}
