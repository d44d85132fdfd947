// Reading a V8 heap snapshot (.heapsnapshot, as v8.writeHeapSnapshot writes it): self size and count
// of the objects of each constructor, biggest first, so two snapshots can be compared by what holds
// their memory.
import { readFileSync } from 'node:fs'

export type ConstructorTotal = { name: string; count: number; bytes: number }

type Snapshot = {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } }
  nodes: number[]
  strings: string[]
}

/** Self bytes and count by constructor (objects), by kind for the rest ("(string)", "(code)", …). */
export function totalsByConstructor(file: string): ConstructorTotal[] {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot
  const fields = snap.snapshot.meta.node_fields
  const width = fields.length
  const typeAt = fields.indexOf('type')
  const nameAt = fields.indexOf('name')
  const sizeAt = fields.indexOf('self_size')
  const types = snap.snapshot.meta.node_types[0]
  const totals = new Map<string, ConstructorTotal>()
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!
    const name = type === 'object' || type === 'native' ? snap.strings[snap.nodes[i + nameAt]!]! : `(${type})`
    const t = totals.get(name) ?? { name, count: 0, bytes: 0 }
    t.count++
    t.bytes += snap.nodes[i + sizeAt]!
    totals.set(name, t)
  }
  return [...totals.values()].sort((a, b) => b.bytes - a.bytes)
}
