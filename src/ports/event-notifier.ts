// Wake-ups that tell api processes the event log has grown. The log itself is the source of truth
// (stream followers always read it from their cursor), so a lost wake-up only costs latency until
// the next poll, never a gap.
export interface EventNotifier {
  /** Called by the engine after it commits events; `seq` is the highest seq committed. */
  notify(seq: number): Promise<void>
  /** Calls `onWake` whenever the log may have grown. Returns an unsubscribe function. */
  subscribe(onWake: (seq: number | null) => void): Promise<() => void>
  close(): Promise<void>
}
