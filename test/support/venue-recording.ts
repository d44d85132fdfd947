// What a venue world records of its adapter: the log lines, the request accounting and the bodies it
// rejected, with the logger and telemetry port that record them. Shared by the Kalshi and Polymarket
// venue worlds.
import type { Logger } from '../../src/ports/logger.ts'
import type { VenueTelemetry } from '../../src/ports/venue.ts'

export type LogLine = { level: keyof Logger; fields: Record<string, unknown>; msg: string }

export type VenueRecords = {
  logs: LogLine[]
  telemetry: { requests: Array<{ endpoint: string; status: string; seconds: number }>; retries: string[] }
  /** bodies the adapter rejected, by endpoint and field */
  rejected: Array<{ endpoint: string; field: string }>
}

/** Empty records, and the logger and telemetry to hand the adapter so that it fills them. */
export function venueRecording(): VenueRecords & { logger: Logger; telemetryPort: VenueTelemetry } {
  const logs: LogLine[] = []
  const telemetry: VenueRecords['telemetry'] = { requests: [], retries: [] }
  const rejected: VenueRecords['rejected'] = []
  const at =
    (level: keyof Logger) =>
    (fields: unknown, msg = ''): void =>
      void logs.push({ level, fields: fields as Record<string, unknown>, msg })
  return {
    logs,
    telemetry,
    rejected,
    logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') },
    telemetryPort: {
      request: (endpoint, status, seconds) => void telemetry.requests.push({ endpoint, status, seconds }),
      retry: (endpoint) => void telemetry.retries.push(endpoint),
      rejected: (endpoint, field) => void rejected.push({ endpoint, field }),
    },
  }
}
