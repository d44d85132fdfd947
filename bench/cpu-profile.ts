// Reading a V8 CPU profile (`--cpu-prof`) the benchmark's way: self time of the samples inside one
// window (counted back from the profile's end, as the process stops right after its load), summed
// by where the time goes. Shared by `npm run bench:profile` and `npm run bench:profile-pair`.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

type Node = { id: number; callFrame: { functionName: string; url: string } }
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; endTime: number }

/**
 * Where a function's self time is charged: GC, native code, a dependency, one of our modules, or
 * a part of Node; `byFunction` splits Node's parts and native code by function name.
 */
export function categoryOf(url: string, name: string, byFunction = false): string {
  if (name === '(garbage collector)') return 'GC'
  if (name === '(idle)') return 'idle'
  if (name === '(program)') return 'program (native, unattributed)'
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (nm) return nm === 'fastify' ? 'fastify core' : nm
  const own = /\/src\/(.+?)(\.ts)?$/.exec(url)?.[1]
  if (own) return `src/${own}`
  const fn = byFunction ? `: ${name || '(anonymous)'}` : ''
  if (url.startsWith('node:internal/http') || url.includes('_http_') || url === 'node:_http_server')
    return `node http${fn}`
  if (url.startsWith('node:internal/streams') || url.startsWith('node:internal/stream'))
    return `node streams${fn}`
  if (url.startsWith('node:net') || url.includes('net.js') || url.startsWith('node:internal/net'))
    return `node net${fn}`
  if (url === '') return `native: ${name || '(anonymous)'}`
  return url.startsWith('node:') ? `node other (${url.replace('node:internal/', '')})${fn}` : url
}

/** The one profile a process wrote into `dir`. */
export function readProfile(dir: string): Profile {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
  if (!file) throw new Error(`no profile written in ${dir}`)
  return JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile
}

/**
 * µs of self time by category (idle left out) in the window that ended `endBeforeEndUs` before the
 * profile's end and lasted `lengthUs`.
 */
export function selfTimes(
  profile: Profile,
  window: { endBeforeEndUs: number; lengthUs: number },
  byFunction = false,
): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const to = profile.endTime - window.endBeforeEndUs
  const from = to - window.lengthUs
  // Sample times are deltas from the start; walked back from the end, where the window is anchored.
  const times: number[] = new Array(profile.samples.length)
  let t = profile.endTime
  for (let i = profile.samples.length - 1; i >= 0; i--) {
    times[i] = t
    t -= profile.timeDeltas[i] ?? 0
  }
  const self = new Map<string, number>()
  for (let i = 0; i < profile.samples.length; i++) {
    if (times[i]! < from || times[i]! > to) continue
    const node = byId.get(profile.samples[i]!)!
    const cat = categoryOf(node.callFrame.url, node.callFrame.functionName, byFunction)
    if (cat !== 'idle') self.set(cat, (self.get(cat) ?? 0) + (profile.timeDeltas[i] ?? 0))
  }
  return self
}
