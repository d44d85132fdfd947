// mkdir -p that cannot hang: Node's recursive mkdir loops forever on some paths (under /proc it spins
// at 100 % of a core, ignoring SIGTERM), so each missing directory is made on its own, and any error
// other than "already there" is final.
import { mkdirSync } from 'node:fs'
import { parse, sep } from 'node:path'

export function makeDirectories(dir: string, mode = 0o777): void {
  const { root } = parse(dir)
  let path = root
  for (const part of dir.slice(root.length).split(sep).filter(Boolean)) {
    path = path === root ? `${root}${part}` : `${path}${sep}${part}`
    try {
      mkdirSync(path, { mode })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
  }
}
