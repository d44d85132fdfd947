// The durable event log's vocabulary. Public events are the spec's stream events; internal events
// exist so that every replica can invalidate its caches from the log alone and are never streamed.
import type { Contest, Signal } from './contest.ts'
import { type ContestView, type SignalView, toContestView, toSignalView } from './contest-view.ts'

export const PUBLIC_EVENT_TYPES = ['contest.opened', 'signal.emitted', 'contest.settled'] as const
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number]

export const INTERNAL_EVENT_TYPES = [
  'contest.expired',
  'contest.revised',
  'history.imported',
  'key.changed',
] as const
export type InternalEventType = (typeof INTERNAL_EVENT_TYPES)[number]

export type EventType = PublicEventType | InternalEventType

export function isPublicEventType(type: string): type is PublicEventType {
  return (PUBLIC_EVENT_TYPES as readonly string[]).includes(type)
}

/** An event before the store has given it a sequence number. */
export type NewEvent = {
  type: EventType
  /** series the event belongs to; '' for events outside any series (keys) */
  series: string
  /** contest ticker, or '' */
  ticker: string
  /** the JSON document sent as the SSE `data` line (already serialized: built once, sent many times) */
  data: string
}

/** An event as stored: `seq` is strictly increasing within one deployment (one store). */
export type StoredEvent = NewEvent & {
  seq: number
  /** wall-clock ms when appended; retention is measured on it */
  appendedAt: number
}

export type SignalEmittedPayload = { signal: SignalView; contest: ContestView }

export function contestOpenedEvent(contest: Contest): NewEvent {
  return event('contest.opened', contest, toContestView(contest))
}

export function signalEmittedEvent(contest: Contest, signal: Signal): NewEvent {
  const payload: SignalEmittedPayload = { signal: toSignalView(signal), contest: toContestView(contest) }
  return event('signal.emitted', contest, payload)
}

export function contestExpiredEvent(contest: Contest): NewEvent {
  return event('contest.expired', contest, toContestView(contest))
}

/** The venue set a live contest's strike or moved its window (decisions §8). */
export function contestRevisedEvent(contest: Contest): NewEvent {
  return event('contest.revised', contest, toContestView(contest))
}

export function contestSettledEvent(contest: Contest): NewEvent {
  return event('contest.settled', contest, toContestView(contest))
}

export function historyImportedEvent(series: string, contests: number): NewEvent {
  return { type: 'history.imported', series, ticker: '', data: JSON.stringify({ series, contests }) }
}

export function keyChangedEvent(keyId: string): NewEvent {
  return { type: 'key.changed', series: '', ticker: '', data: JSON.stringify({ id: keyId }) }
}

function event(type: EventType, contest: Contest, payload: unknown): NewEvent {
  return { type, series: contest.series, ticker: contest.ticker, data: JSON.stringify(payload) }
}
