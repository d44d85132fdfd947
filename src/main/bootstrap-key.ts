// First start (decisions §2): with no key in the store, create one labelled `bootstrap` and print it
// once with ready-to-paste curl commands. It is never printed again: the next start finds a key.
import { issueKey } from '../keys/key-service.ts'
import type { Clock } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'

export async function announceBootstrapKey(
  store: Store,
  url: string,
  series: string,
  clock: Clock,
  out: (line: string) => void,
): Promise<void> {
  if ((await store.listKeys()).length > 0) return
  const { key } = await issueKey(store, 'bootstrap', clock)
  const auth = `-H "Authorization: Bearer ${key}"`
  out('')
  out('A first API key was created (label "bootstrap"). It is shown only this once:')
  out('')
  out(`  ${key}`)
  out('')
  out('Try it:')
  out(`  curl -s ${auth} "${url}/v1/contests/active?series=${series}"`)
  out(`  curl -s ${auth} "${url}/v1/contests?series=${series}&limit=5"`)
  out(`  curl -N ${auth} "${url}/v1/stream/contests?series=${series}"`)
  out('')
}
