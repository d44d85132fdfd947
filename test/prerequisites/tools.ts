// chromium (the browser tests, driven by playwright-core, which downloads no browser), curl and jq
// (the README's curl walkthrough), python3 (the Python example, examples/python), promtool (the
// alert rules in deploy/, from Debian's `prometheus`): found on the PATH, installed with apt-get when
// missing and the run may (root), else named with the command that installs them.
import { isExecutable, lastLine, onPath, run } from './programs.ts'
import { begin, say, Unmet } from './report.ts'

const TOOLS = ['chromium', 'curl', 'jq', 'python3', 'promtool'] as const

/** The Debian package that brings a tool, where its name is not the tool's. */
const PACKAGE: Partial<Record<string, string>> = { promtool: 'prometheus' }
const packageOf = (tool: string): string => PACKAGE[tool] ?? tool

export type ToolSettings = {
  /** the PATH the step searches */
  searchPath: string
  /** CHROMIUM_PATH: a Chromium of the user's choosing, used instead of the PATH's */
  chromiumPath: string | undefined
  isRoot: boolean
}

/** Ensures the tools; returns the environment the tests need to find them (CHROMIUM_PATH). */
export async function ensureTools(settings: ToolSettings): Promise<Record<string, string>> {
  const found = new Map<string, string>()
  if (settings.chromiumPath !== undefined) {
    if (!isExecutable(settings.chromiumPath))
      throw new Unmet(
        'chromium',
        `CHROMIUM_PATH=${settings.chromiumPath} is not an executable file: point it at a Chromium or unset it`,
      )
    found.set('chromium', settings.chromiumPath)
  }
  for (const tool of TOOLS) {
    if (found.has(tool)) continue
    const where = onPath(tool, settings.searchPath)
    if (where !== null) found.set(tool, where)
  }

  const missing = TOOLS.filter((t) => !found.has(t))
  const aptGet = onPath('apt-get', settings.searchPath)
  const packages = missing.map(packageOf)
  const command = `apt-get install -y ${packages.join(' ')}`
  if (missing.length > 0 && (!settings.isRoot || aptGet === null)) {
    const first = missing[0]!
    const how =
      aptGet === null
        ? `install ${packages.join(', ')} with the system's package manager`
        : `run: sudo apt-get update && sudo ${command}`
    const alternative = first === 'chromium' ? ' (or point CHROMIUM_PATH at a Chromium)' : ''
    throw new Unmet(first, `missing ${missing.join(', ')}: ${how}${alternative}`)
  }

  let installed = false
  for (const tool of TOOLS) {
    const known = found.get(tool)
    if (known !== undefined) {
      say(tool, tool === 'chromium' && settings.chromiumPath !== undefined ? `CHROMIUM_PATH=${known}` : known)
      continue
    }
    if (installed) {
      say(tool, `${await installedPath(tool, settings.searchPath)} (installed by that apt-get)`)
      continue
    }
    const line = begin(tool, `missing: apt-get update, ${command} … `)
    try {
      await aptInstall(aptGet!, packages, tool)
    } catch (err) {
      line.finish('failed')
      throw err
    }
    installed = true
    line.finish(await installedPath(tool, settings.searchPath))
  }

  // The browser tests look for Debian's /usr/bin/chromium unless told otherwise.
  return { CHROMIUM_PATH: found.get('chromium') ?? (await installedPath('chromium', settings.searchPath)) }
}

async function aptInstall(aptGet: string, packages: readonly string[], tool: string): Promise<void> {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  // Another install on the machine holds dpkg's lock for a while: wait for it rather than fail.
  const wait = ['-o', 'DPkg::Lock::Timeout=600']
  const update = await run(aptGet, ['update', '-qq', ...wait], { env })
  if (update.code !== 0) throw new Unmet(tool, `apt-get update failed: ${lastLine(update.output)}`)
  const install = await run(aptGet, ['install', '-y', '-qq', ...wait, ...packages], { env })
  if (install.code !== 0) throw new Unmet(tool, `apt-get install failed: ${lastLine(install.output)}`)
}

async function installedPath(tool: string, searchPath: string): Promise<string> {
  const where = onPath(tool, searchPath)
  if (where === null)
    throw new Unmet(tool, `apt-get installed ${tool}, yet it is not on the PATH (${searchPath})`)
  return where
}
