// The idle timeout over real sockets, with the sweep's clock in the test's hands: which connections
// are closed for being quiet, and which are not.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { connect as connectTls } from 'node:tls'
import { createManualClock } from '../../test/support/manual-clock.ts'
import { waitUntil } from '../../test/support/wait.ts'
import { exemptFromIdleTimeout, idleTimeoutOf, watchIdleConnections } from './idle-connections.ts'

const IDLE_MS = 15_000

type TlsMaterial = { key: Buffer; cert: Buffer }
type World = Awaited<ReturnType<typeof startWorld>>

/** A server whose handler keeps each response for the test: `/answer` is answered at once. */
async function startWorld(tls?: TlsMaterial) {
  const held: ServerResponse[] = []
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/answer') res.end('ok')
    else if (req.url === '/stream') {
      exemptFromIdleTimeout(res.socket as Socket)
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(': open\n\n')
      held.push(res)
    } else held.push(res)
  }
  const server: Server = tls ? createHttpsServer(tls, handler) : createServer(handler)
  const clock = createManualClock(0)
  const watch = watchIdleConnections(server, { idleMs: IDLE_MS, tls: tls !== undefined, now: clock.now })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    server,
    port: (server.address() as { port: number }).port,
    tls: tls !== undefined,
    held,
    watch,
    /** moves the sweep's clock on and sweeps, as the interval would */
    after(ms: number) {
      clock.advance(ms)
      watch.sweep()
    },
  }
}

/** Runs `body` against a fresh world, and closes it whatever happens. */
async function withWorld(body: (w: World) => Promise<void>, tls?: TlsMaterial): Promise<void> {
  const w = await startWorld(tls)
  try {
    await body(w)
  } finally {
    w.watch.stop()
    for (const res of w.held) res.destroy()
    w.server.closeAllConnections()
    w.server.close()
    await once(w.server, 'close')
  }
}

/** A client socket (TLS when the world is), connected and seen by the server where HTTP starts. */
async function client(w: World) {
  const accepted = once(w.server, w.tls ? 'secureConnection' : 'connection')
  const socket = w.tls
    ? connectTls({ port: w.port, host: '127.0.0.1', rejectUnauthorized: false })
    : connect(w.port, '127.0.0.1')
  let received = ''
  socket.setEncoding('utf8').on('data', (d: string) => {
    received += d
  })
  socket.on('error', () => undefined)
  const closed = once(socket, 'close').then(() => received)
  await accepted
  return { socket, closed, received: () => received, isOpen: () => !socket.destroyed && !socket.closed }
}

/** Sends a request and waits until the server holds it (or has answered it). */
async function request(c: Awaited<ReturnType<typeof client>>, url: string, until: () => boolean) {
  c.socket.write(`GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`)
  await waitUntil(until, `the server to take ${url}`)
}

/** Lets the sockets' pending events run. */
const turn = () => new Promise((resolve) => setImmediate(resolve))

test('a connection that never sends a byte is closed once quiet for the timeout, with nothing said', async () => {
  await withWorld(async (w) => {
    const silent = await client(w)
    w.after(1) // the sweep notes the connection
    w.after(IDLE_MS - 2)
    assert.ok(silent.isOpen(), 'not before the timeout')
    w.after(1)
    assert.equal(await silent.closed, '')
    assert.equal(idleTimeoutOf(w.server), IDLE_MS)
  })
})

test('a request open with nothing moving is closed; one whose answer is moving is not', async () => {
  await withWorld(async (w) => {
    const stuck = await client(w)
    await request(stuck, '/hang', () => w.held.length === 1)
    const moving = await client(w)
    await request(moving, '/slow', () => w.held.length === 2)
    w.after(1)
    for (let t = 0; t < IDLE_MS; t += IDLE_MS / 10) {
      // the second answer sends a little now and then
      w.held[1]!.write('x')
      await turn()
      w.after(IDLE_MS / 10)
    }
    assert.equal(await stuck.closed, '', 'the quiet request is closed')
    assert.ok(moving.isOpen(), 'the moving one is not')
    assert.equal(idleTimeoutOf(w.server), IDLE_MS)
  })
})

test('a keep-alive connection between requests and a stream are not closed for being quiet', async () => {
  await withWorld(async (w) => {
    const kept = await client(w)
    await request(kept, '/answer', () => kept.received().endsWith('ok'))
    const stream = await client(w)
    await request(stream, '/stream', () => stream.received().includes(': open'))
    w.after(1)
    w.after(IDLE_MS * 3)
    w.after(IDLE_MS * 3)
    await turn()
    assert.ok(kept.isOpen(), 'between requests a connection is the keep-alive timeout’s')
    assert.ok(stream.isOpen(), 'a stream exempts itself')
    // the next request on the kept connection is watched again
    await request(kept, '/hang', () => w.held.length === 2)
    w.after(1)
    w.after(IDLE_MS)
    await kept.closed
  })
})

test('stopped, it closes nothing and forgets the server', async () => {
  await withWorld(async (w) => {
    const silent = await client(w)
    w.watch.stop()
    w.after(IDLE_MS * 2)
    assert.ok(silent.isOpen())
    assert.equal(idleTimeoutOf(w.server), undefined)
    silent.socket.destroy()
  })
})

test('over TLS, the connections watched are those past the handshake, where HTTP starts', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cs-idle-tls-'))
  try {
    const [keyFile, certFile] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')]
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ]),
      { stdio: 'ignore' },
    )
    const tls = { key: readFileSync(keyFile), cert: readFileSync(certFile) }
    await withWorld(async (w) => {
      const silent = await client(w)
      const stream = await client(w)
      await request(stream, '/stream', () => stream.received().includes(': open'))
      w.after(1)
      w.after(IDLE_MS)
      await silent.closed
      assert.ok(stream.isOpen(), 'a stream over TLS exempts the socket that is watched')
    }, tls)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
