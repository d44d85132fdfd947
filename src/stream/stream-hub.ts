// The stream hub: owns every open SSE connection of this process. Implementation pending.
import type { ServerResponse } from 'node:http'

export type StreamOpenRequest = {
  /** the `series` query value: a series, or the ticker of a contest */
  series: string
  /** Last-Event-ID header or last_event_id query value, unparsed; null when absent */
  lastEventId: string | null
}

export type StreamHub = {
  /**
   * Takes over a response whose status line and headers the route has already written
   * (200, text/event-stream): writes `retry`, the snapshot or the replay, then live events,
   * keep-alives, and ends it on close().
   */
  attach(res: ServerResponse, request: StreamOpenRequest): Promise<void>
  /** open streams in this process */
  size(): number
  /** Ends every stream cleanly (shutdown); later attach() calls end the response at once. */
  close(): Promise<void>
}
