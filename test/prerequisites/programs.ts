// Finding and running the machine's programs, as the step needs them.
import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import path from 'node:path'

/** The program's path on `searchPath` (a PATH-style list), or null. */
export function onPath(program: string, searchPath: string): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue
    const candidate = path.join(dir, program)
    if (isExecutable(candidate)) return candidate
  }
  return null
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export type Outcome = { code: number | null; output: string }

/** Runs a program to its end, its output kept for the error message rather than shown. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.on('error', (err) => resolve({ code: null, output: err.message }))
    child.on('close', (code) => resolve({ code, output }))
  })
}

/** Like run, for exit handlers, where nothing asynchronous gets to finish. */
export function runSync(command: string, args: readonly string[], options: { cwd?: string } = {}): void {
  spawnSync(command, args, { ...options, stdio: 'ignore', timeout: 30_000 })
}

/** The last non-empty line of a program's output: usually the reason it failed. */
export function lastLine(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
  return lines.at(-1) ?? '(no output)'
}
