// A raw HTTP/1.1 request (node:http) for the things fetch hides: compressed bytes as sent, exact
// request lines, several requests on one kept-alive socket.
import { type Agent, request } from 'node:http'
import { connect } from 'node:net'

export type RawResponse = {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; agent?: Agent; path?: string } = {},
): Promise<RawResponse> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? 'GET',
        path: opts.path ?? `${u.pathname}${u.search}`,
        headers: opts.headers,
        agent: opts.agent,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end()
  })
}

/** Sends bytes on a fresh socket and returns everything the server answers before closing. */
export function rawExchange(baseUrl: string, bytes: string): Promise<string> {
  const { port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(bytes))
    let text = ''
    socket.on('data', (d) => {
      text += d.toString()
    })
    socket.on('close', () => resolve(text))
    socket.on('error', reject)
  })
}
