// A raw HTTP/1.1 request (node:http) for the things fetch hides: compressed bytes as sent, exact
// request lines, several requests on one kept-alive socket.
import { type Agent, request } from 'node:http'

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
