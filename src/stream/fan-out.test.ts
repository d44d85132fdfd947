// The fan-out: every matching stream gets an event once, in its own framing, and one failing socket
// neither stops the others nor escapes.
import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { test } from 'node:test'
import { createFanOut } from './fan-out.ts'
import { newSubscriber, type Subscriber } from './subscriber-index.ts'

const FRAME = Buffer.from('event: e\nid: 1\ndata: {}\n\n')
const CHUNK = Buffer.from(`${FRAME.length.toString(16)}\r\n${FRAME}\r\n`)

/** A socket that records what is written to it, or throws when told to. */
function fakeSocket(opts: { throws?: boolean } = {}) {
  const written: Buffer[] = []
  let corked = 0
  const socket = {
    destroyed: false,
    get writableCorked() {
      return corked
    },
    cork() {
      corked++
    },
    write(b: Buffer) {
      if (opts.throws) throw new Error('write failed')
      written.push(b)
      return true
    },
  }
  return { socket: socket as unknown as Socket, written, corked: () => corked }
}

function sub(socket: Socket | null, overrides: Partial<Subscriber> = {}): Subscriber {
  const res = { destroyed: false, writableEnded: false } as ServerResponse
  return { ...newSubscriber(res, null), socket, chunked: true, ...overrides }
}

function world() {
  const log = { throughResponse: [] as Subscriber[], failed: [] as Subscriber[], watched: [] as Subscriber[] }
  const fanOut = createFanOut({
    writeThroughResponse: (s) => void log.throughResponse.push(s),
    failed: (s) => void log.failed.push(s),
    watchQueue: (s) => void log.watched.push(s),
  })
  return { fanOut, log }
}

test('fan-out › each stream gets the event once, chunked or bare as its response is framed', () => {
  const { fanOut, log } = world()
  const a = fakeSocket()
  const b = fakeSocket()
  const subA = sub(a.socket)
  const subB = sub(b.socket, { chunked: false })
  const noSocket = sub(null)
  fanOut.send([new Set([subA, noSocket]), new Set([subB])], 7, FRAME, CHUNK, null)
  fanOut.send([new Set([subA, noSocket]), new Set([subB])], 7, FRAME, CHUNK, null)
  assert.deepEqual(a.written, [CHUNK])
  assert.deepEqual(b.written, [FRAME])
  assert.deepEqual(log.throughResponse, [noSocket])
  assert.deepEqual(log.watched, [subA, subB])
  assert.equal(subA.lastSeq, 7)
})

test('fan-out › ended streams and streams that already had the event get nothing', () => {
  const { fanOut, log } = world()
  const sockets = [fakeSocket(), fakeSocket(), fakeSocket(), fakeSocket()]
  const [had, done, ended, destroyed] = sockets
  const subs = [
    sub(had!.socket, { lastSeq: 9 }),
    sub(done!.socket, { done: true }),
    sub(ended!.socket, { res: { destroyed: false, writableEnded: true } as ServerResponse }),
    sub(destroyed!.socket),
  ]
  ;(destroyed!.socket as { destroyed: boolean }).destroyed = true
  fanOut.send([new Set(subs)], 9, FRAME, CHUNK, null)
  for (const s of sockets) assert.deepEqual(s.written, [])
  assert.deepEqual(log.watched, [])
})

test('fan-out › a socket that throws is reported and the streams after it still get the event', () => {
  const { fanOut, log } = world()
  const bad = fakeSocket({ throws: true })
  const good = fakeSocket()
  const subBad = sub(bad.socket)
  const subGood = sub(good.socket)
  fanOut.send([new Set([subBad, subGood])], 1, FRAME, CHUNK, null)
  assert.deepEqual(log.failed, [subBad])
  assert.deepEqual(good.written, [CHUNK])
})

test('fan-out › in a batch each socket is corked once and handed back for the caller to uncork', () => {
  const { fanOut } = world()
  const a = fakeSocket()
  const subA = sub(a.socket)
  const corked: Socket[] = []
  fanOut.send([new Set([subA])], 1, FRAME, CHUNK, corked)
  fanOut.send([new Set([subA])], 2, FRAME, CHUNK, corked)
  assert.deepEqual(corked, [a.socket])
  assert.equal(a.corked(), 1)
  assert.deepEqual(a.written, [CHUNK, CHUNK])
})
