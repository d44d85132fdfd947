// HTTP/1.1 over a raw kept-alive socket, returning the response exactly as it came off the wire:
// the status line, every header line in order, and the body bytes. For comparing two servers byte
// for byte (test/http-fast-path.test.ts).
import { connect, type Socket } from 'node:net'

export type WireResponse = { statusLine: string; headers: [string, string][]; body: Buffer }

export type WireClient = {
  /**
   * `headOnly`: return once the head is in (an open-ended stream); the connection is then spent.
   * `noHost`: leave out the Host header. A chunked body is returned decoded.
   */
  send(
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    opts?: { headOnly?: boolean; noHost?: boolean },
  ): Promise<WireResponse>
  close(): void
}

export function createWireClient(port: number): WireClient {
  let socket: Socket | null = null
  let buffered = Buffer.alloc(0)
  let waiting: (() => void) | null = null
  let closed = false

  function open(): Socket {
    if (socket && !socket.destroyed && !closed) return socket
    closed = false
    buffered = Buffer.alloc(0)
    const s = connect(port, '127.0.0.1')
    // A closed connection's late events must not touch the one that replaced it.
    s.on('data', (chunk: Buffer) => {
      if (socket !== s) return
      buffered = Buffer.concat([buffered, chunk])
      waiting?.()
    })
    s.on('end', () => {
      if (socket !== s) return
      closed = true
      waiting?.()
    })
    s.on('close', () => {
      if (socket !== s) return
      closed = true
      waiting?.()
    })
    s.on('error', () => undefined)
    socket = s
    return s
  }

  async function until<T>(take: () => T | null): Promise<T> {
    for (;;) {
      const got = take()
      if (got !== null) return got
      if (closed) throw new Error('connection closed before a whole response arrived')
      await new Promise<void>((resolve) => {
        waiting = resolve
      })
      waiting = null
    }
  }

  let retire = false

  return {
    async send(method, path, headers, opts = {}) {
      if (retire) {
        socket?.destroy()
        socket = null
        retire = false
      }
      const s = open()
      // Host: 127.0.0.1 unless the caller gives its own Host line(s) or asks for none
      const hasHost = Object.keys(headers).some((k) => k.toLowerCase() === 'host')
      const lines = [
        `${method} ${path} HTTP/1.1`,
        ...(hasHost || opts.noHost ? [] : ['Host: 127.0.0.1']),
        ...Object.entries(headers).flatMap(([k, v]) =>
          (Array.isArray(v) ? v : [v]).map((one) => `${k}: ${one}`),
        ),
      ]
      s.write(`${lines.join('\r\n')}\r\n\r\n`)
      const headEnd = await until(() => {
        const i = buffered.indexOf('\r\n\r\n')
        return i === -1 ? null : i
      })
      const [statusLine = '', ...rest] = buffered.subarray(0, headEnd).toString('latin1').split('\r\n')
      const headerLines = rest.map((line): [string, string] => {
        const colon = line.indexOf(':')
        return [line.slice(0, colon), line.slice(colon + 1).trim()]
      })
      if (opts.headOnly) return { statusLine, headers: headerLines, body: Buffer.alloc(0) }
      const status = Number(statusLine.split(' ')[1])
      const length = headerLines.find(([k]) => k.toLowerCase() === 'content-length')?.[1]
      // The server closes after this answer: the next request goes on a fresh connection.
      if (headerLines.some(([k, v]) => k.toLowerCase() === 'connection' && v.toLowerCase() === 'close'))
        retire = true
      const noBody = method === 'HEAD' || status === 304 || status === 204
      const start = headEnd + 4
      if (
        !noBody &&
        headerLines.some(([k, v]) => k.toLowerCase() === 'transfer-encoding' && v === 'chunked')
      ) {
        const chunks: Buffer[] = []
        let at = start
        for (;;) {
          const lineEnd = await until(() => {
            const i = buffered.indexOf('\r\n', at)
            return i === -1 ? null : i
          })
          const size = Number.parseInt(buffered.subarray(at, lineEnd).toString('latin1'), 16)
          await until(() => (buffered.length >= lineEnd + 2 + size + 2 ? true : null))
          chunks.push(Buffer.from(buffered.subarray(lineEnd + 2, lineEnd + 2 + size)))
          at = lineEnd + 2 + size + 2
          if (size === 0) break
        }
        buffered = buffered.subarray(at)
        return { statusLine, headers: headerLines, body: Buffer.concat(chunks) }
      }
      const bodyLength = noBody || length === undefined ? 0 : Number(length)
      await until(() => (buffered.length >= start + bodyLength ? true : null))
      const body = Buffer.from(buffered.subarray(start, start + bodyLength))
      buffered = buffered.subarray(start + bodyLength)
      return { statusLine, headers: headerLines, body }
    },
    close() {
      socket?.destroy()
    },
  }
}
