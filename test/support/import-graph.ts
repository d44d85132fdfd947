// The project's import graph read from the source (biome's import rules see one file at a time; these
// follow chains). Only relative imports of .ts files count: node: and npm modules are no concern here.
import { readFileSync } from 'node:fs'
import path from 'node:path'

export const ROOT = path.join(import.meta.dirname, '..', '..')

export type Import = { to: string; typeOnly: boolean }

// a statement `import … from '…'` or `export … from '…'` at the start of a line (group 2: `type`, so
// nothing is loaded; group 3: the specifier), or `import '…'` and `import('…')` anywhere (group 4)
const SPECIFIER =
  /^\s*(import|export)(\s+type\b)?[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/gm

/** The relative imports of one file, resolved; a type-only one (`import type`) loads nothing at run time. */
export function importsOf(file: string): Import[] {
  const out: Import[] = []
  for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    const spec = (m[3] ?? m[4]) as string
    out.push({ to: path.resolve(path.dirname(file), spec), typeOnly: m[2] !== undefined })
  }
  return out
}

/** The chain of imports from `entry` to a file `isTarget` accepts, or null when none is in reach. */
export function chainTo(entry: string, isTarget: (file: string) => boolean): string[] | null {
  const seen = new Set<string>([entry])
  const queue: string[][] = [[entry]]
  while (queue.length > 0) {
    const chain = queue.shift() as string[]
    for (const { to } of importsOf(chain.at(-1) as string)) {
      if (isTarget(to)) return [...chain, to]
      if (seen.has(to) || !to.endsWith('.ts')) continue
      seen.add(to)
      queue.push([...chain, to])
    }
  }
  return null
}

/**
 * Every file `entry` loads at run time (itself included), following value imports only, in the order
 * found; `edge` hears which file first brought each one in.
 */
export function loadedBy(entry: string, edge?: (parent: string, child: string) => void): Set<string> {
  const seen = new Set<string>([entry])
  const queue = [entry]
  while (queue.length > 0) {
    const parent = queue.shift() as string
    for (const { to, typeOnly } of importsOf(parent)) {
      if (typeOnly || seen.has(to) || !to.endsWith('.ts')) continue
      seen.add(to)
      edge?.(parent, to)
      queue.push(to)
    }
  }
  return seen
}

export const relative = (files: readonly string[]): string =>
  files.map((f) => path.relative(ROOT, f)).join(' → ')
