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
import { exemptFromIdleTimeout, idleTimeoutOf, watchIdleConnections } from './idle-connections.ts'

const IDLE_MS = 15_000

/** A server whose handler keeps each response for the test: `/answer` is answered at once. */
async function world(tls?: { key: Buffer; cert: Buffer }) {
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
  let clock = 0
  const watch = watchIdleConnections(server, { idleMs: IDLE_MS, tls: tls !== undefined, now: () => clock })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port
  return {
    server,
    port,
    held,
    watch,
    /** moves the sweep's clock on and sweeps, as the interval would */
    after(ms: number) {
      clock += ms
      watch.sweep()
    },
    async close() {
      watch.stop()
      for (const res of held) res.destroy()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

/** A raw client socket, connected and seen by the server. */
async function client(server: Server, port: number, event = 'connection') {
  const accepted = once(server, event)
  const socket = connect(port, '127.0.0.1')
  let received = ''
  socket.setEncoding('utf8').on('data', (d: string) => {
    received += d
  })
  socket.on('error', () => undefined)
  const closed = once(socket, 'close').then(() => received)
  await accepted
  return { socket, closed, received: () => received, isOpen: () => !socket.destroyed && !socket.closed }
}

/** Sends a request and waits for the server to hold it (or answer it). */
async function request(c: Awaited<ReturnType<typeof client>>, url: string, until: () => boolean) {
  c.socket.write(`GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`)
  while (!until()) await new Promise((resolve) => setImmediate(resolve))
}

test('a connection that never sends a byte is closed once quiet for the timeout, with nothing said', async () => {
  const w = await world()
  try {
    const silent = await client(w.server, w.port)
    w.after(1) // the sweep notes the connection
    w.after(IDLE_MS - 2)
    assert.ok(silent.isOpen(), 'not before the timeout')
    w.after(1)
    assert.equal(await silent.closed, '')
    assert.equal(idleTimeoutOf(w.server), IDLE_MS)
  } finally {
    await w.close()
  }
})

test('a request open with nothing moving is closed; one whose answer is moving is not', async () => {
  const w = await world()
  try {
    const stuck = await client(w.server, w.port)
    await request(stuck, '/hang', () => w.held.length === 1)
    const moving = await client(w.server, w.port)
    await request(moving, '/slow', () => w.held.length === 2)
    w.after(1)
    for (let t = 0; t < IDLE_MS; t += IDLE_MS / 10) {
      // the second answer sends a little now and then
      w.held[1]!.write('x')
      await new Promise((resolve) => setImmediate(resolve))
      w.after(IDLE_MS / 10)
    }
    assert.equal(await stuck.closed, '', 'the quiet request is closed')
    assert.ok(moving.isOpen(), 'the moving one is not')
    assert.equal(idleTimeoutOf(w.server), IDLE_MS)
  } finally {
    await w.close()
  }
})

test('a keep-alive connection between requests and a stream are not closed for being quiet', async () => {
  const w = await world()
  try {
    const kept = await client(w.server, w.port)
    await request(kept, '/answer', () => kept.received().endsWith('ok'))
    const stream = await client(w.server, w.port)
    await request(stream, '/stream', () => stream.received().includes(': open'))
    w.after(1)
    w.after(IDLE_MS * 3)
    w.after(IDLE_MS * 3)
    await new Promise((resolve) => setImmediate(resolve))
    assert.ok(kept.isOpen(), 'between requests a connection is the keep-alive timeout’s')
    assert.ok(stream.isOpen(), 'a stream exempts itself')
    // the next request on the kept connection is watched again
    await request(kept, '/hang', () => w.held.length === 2)
    w.after(1)
    w.after(IDLE_MS)
    await kept.closed
  } finally {
    await w.close()
  }
})

test('stopped, it closes nothing and forgets the server', async () => {
  const w = await world()
  try {
    const silent = await client(w.server, w.port)
    w.watch.stop()
    w.after(IDLE_MS * 2)
    assert.ok(silent.isOpen())
    assert.equal(idleTimeoutOf(w.server), undefined)
    silent.socket.destroy()
  } finally {
    await w.close()
  }
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
    const w = await world(tls)
    try {
      const tlsClient = async () => {
        const accepted = once(w.server, 'secureConnection')
        const socket = connectTls({ port: w.port, host: '127.0.0.1', rejectUnauthorized: false })
        socket.on('error', () => undefined)
        let received = ''
        socket.setEncoding('utf8').on('data', (d: string) => {
          received += d
        })
        await accepted
        return { socket, closed: once(socket, 'close'), received: () => received }
      }
      const silent = await tlsClient()
      const stream = await tlsClient()
      stream.socket.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\n')
      while (!stream.received().includes(': open')) await new Promise((resolve) => setImmediate(resolve))
      w.after(1)
      w.after(IDLE_MS)
      await silent.closed
      assert.ok(!stream.socket.destroyed, 'a stream over TLS exempts the socket that is watched')
      stream.socket.destroy()
    } finally {
      await w.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
