// Where DATABASE_URL points, said plainly: a relative SQLite path is resolved against the current
// directory once, here, and every command shows the absolute path it opened — so nobody silently
// creates an empty store in the wrong directory.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { safeUrl } from './logger.ts'

export type StoreLocation =
  | { kind: 'sqlite' /** absolute, or ':memory:' */; path: string; exists: boolean; display: string }
  | { kind: 'postgres'; url: string /** without its password */; display: string }

export function storeLocation(databaseUrl: string, cwd: string = process.cwd()): StoreLocation {
  if (databaseUrl.startsWith('sqlite:')) {
    const given = databaseUrl.slice('sqlite:'.length)
    if (given === ':memory:')
      return { kind: 'sqlite', path: given, exists: false, display: 'sqlite::memory:' }
    const absolute = path.resolve(cwd, given)
    return { kind: 'sqlite', path: absolute, exists: existsSync(absolute), display: `sqlite:${absolute}` }
  }
  return { kind: 'postgres', url: databaseUrl, display: safeUrl(databaseUrl) }
}

/** One line for an operator: which store, and whether it was just created empty. */
export function describeStore(location: StoreLocation): string {
  if (location.kind === 'sqlite' && !location.exists && location.path !== ':memory:')
    return `store ${location.display} (new: no file was there, an empty store was created)`
  return `store ${location.display}`
}
