// Packs a package as `npm pack` does for a release and installs the tarball into a fresh project,
// offline, as a user's `npm install <tarball>` would lay it out. The machine has no registry: npm
// fetches nothing, so the project gets a lockfile naming each runtime dependency at the version
// (and integrity) this repository's package-lock.json pins, and `npm ci --offline` takes every
// tarball from the local npm cache. Install scripts are not run (no telemetry, no network).
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { childEnv, REPO_ROOT } from './service-process.ts'

const run = promisify(execFile)

/** PATH with this Node first, so npm, and an installed bin's `#!/usr/bin/env node`, run on it. */
export function nodeEnv(env: Record<string, string> = {}): Record<string, string> {
  return childEnv({ PATH: `${path.dirname(process.execPath)}:${childEnv({}).PATH}`, ...env })
}

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('npm', args, { cwd, env: nodeEnv(), maxBuffer: 64 * 1024 * 1024 })
  return stdout
}

/** `npm pack` of `packageDir` (its prepack script included) into `dest`; returns the tarball's path. */
export async function pack(packageDir: string, dest: string): Promise<string> {
  const out = JSON.parse(await npm(['pack', '--json', '--pack-destination', dest], packageDir)) as {
    filename: string
  }[]
  return path.join(dest, out[0]!.filename)
}

type LockEntry = { version: string; dev?: boolean; integrity?: string; [field: string]: unknown }

/**
 * Installs `tarball` as the one dependency of a new project in `projectDir` (which must exist and be
 * empty), offline; returns the package's directory under node_modules.
 */
export async function installOffline(projectDir: string, tarball: string): Promise<string> {
  const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json'])
  const packed = JSON.parse(stdout) as {
    name: string
    version: string
    bin?: Record<string, string>
    dependencies?: Record<string, string>
  }
  const spec = `file:${path.relative(projectDir, tarball)}`
  const repoLock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>
  }
  const packages: Record<string, unknown> = {
    '': { name: 'install-check', dependencies: { [packed.name]: spec } },
    [`node_modules/${packed.name}`]: {
      version: packed.version,
      resolved: spec,
      // npm ci links bins from the lockfile's record, not from the package
      ...(packed.bin ? { bin: packed.bin } : {}),
      dependencies: packed.dependencies ?? {},
    },
  }
  // every runtime package the repository installs, where it installs it (its tree is already hoisted)
  if (packed.dependencies && Object.keys(packed.dependencies).length > 0)
    for (const [where, entry] of Object.entries(repoLock.packages)) {
      if (where === '' || entry.dev) continue
      const name = where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length)
      const resolved = `https://registry.npmjs.org/${name}/-/${name.split('/').at(-1)}-${entry.version}.tgz`
      packages[where] = { ...entry, resolved }
    }
  const manifest = {
    name: 'install-check',
    private: true,
    dependencies: { [packed.name]: spec },
    // swagger-ui-dist's @scarf/scarf reports installs unless the root project opts out
    scarfSettings: { enabled: false },
  }
  writeFileSync(path.join(projectDir, 'package.json'), JSON.stringify(manifest, null, 2))
  const lock = { name: 'install-check', lockfileVersion: 3, requires: true, packages }
  writeFileSync(path.join(projectDir, 'package-lock.json'), JSON.stringify(lock, null, 2))
  await npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], projectDir)
  return path.join(projectDir, 'node_modules', packed.name)
}
