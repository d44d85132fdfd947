// A command's output when stdout cannot take it (decisions §2: one clear line, never a stack
// trace): a reader that went away (`| head -1`, EPIPE) ends the output quietly, a full disk
// (ENOSPC) or another failure is said once; either way the command exits non-zero, since what it
// printed did not all arrive.
import { fstatSync, statSync } from 'node:fs'

let failure: NodeJS.ErrnoException | null = null

/** Catches stdout's write errors, which Node would otherwise throw as an unhandled 'error' event. */
export function guardStdout(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (failure !== null) return
    failure = err
    if (err.code !== 'EPIPE')
      process.stderr.write(`contest-signals: cannot write the output: ${err.code ?? err.message}\n`)
  })
  // the error may come after the command has returned its code
  process.once('exit', () => {
    if (failure !== null) process.exitCode = exitCodeAfterOutput(Number(process.exitCode ?? 0))
  })
}

/** The exit code a command's own code becomes once its output is known to have failed. */
export function exitCodeAfterOutput(code: number): number {
  return failure === null ? code : Math.max(code, 1)
}

/**
 * Writes to stdout; resolves once Node has handed the text on, rejects with the write's error, which
 * the caller then says in its own words (the guard stays quiet about it).
 */
export function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (err) => {
      if (!err) return resolve()
      failure ??= err
      reject(err)
    })
  })
}

/**
 * Whether stdout goes nowhere: /dev/null, which is also what Node puts on a stdout the shell closed
 * (`>&-`). Output that must be seen once (a new key) would be lost there.
 */
export function stdoutIsDiscarded(): boolean {
  try {
    const out = fstatSync(1)
    const devNull = statSync('/dev/null')
    return out.isCharacterDevice() && out.rdev === devNull.rdev
  } catch {
    return false
  }
}
