// GET a running service's JSON with its key, for end-to-end tests of the real CLI (the service's
// URL and key are known only once it has started, hence the getter).

// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
type Json = Record<string, any>

export function keyedGet(
  service: () => { url: string; key: string },
): (path: string) => Promise<{ status: number; body: Json }> {
  return async (path) => {
    const { url, key } = service()
    const res = await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${key}` } })
    return { status: res.status, body: (await res.json()) as Json }
  }
}
