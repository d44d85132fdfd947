// initdb and postgres refuse to run as root: when the run is root, they run as the `postgres` user
// (which Debian's packages create) through util-linux's runuser.
import { execFileSync } from 'node:child_process'
import { onPath } from './programs.ts'
import { Unmet } from './report.ts'

export type RunAs = {
  /** the command and arguments that run `command args` as the unprivileged user */
  wrap(command: string, args: readonly string[]): [string, string[]]
  /** uid and gid to hand the temporary directory to, or null when the run is not root */
  owner: { uid: number; gid: number } | null
}

const USER = 'postgres'

export function unprivileged(isRoot: boolean, searchPath: string): RunAs {
  if (!isRoot) return { wrap: (command, args) => [command, [...args]], owner: null }
  const runuser = onPath('runuser', searchPath)
  let ids: { uid: number; gid: number }
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim())
    ids = { uid: id('-u'), gid: id('-g') }
  } catch {
    throw new Unmet(
      'PostgreSQL',
      `running as root, initdb needs the unprivileged user ${USER}: create it (useradd --system ${USER}) or set TEST_DATABASE_URL`,
    )
  }
  if (runuser === null)
    throw new Unmet(
      'PostgreSQL',
      'running as root, initdb needs runuser to drop to the postgres user: apt-get install util-linux',
    )
  return { wrap: (command, args) => [runuser, ['-u', USER, '--', command, ...args]], owner: ids }
}
