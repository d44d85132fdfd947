// The step's voice: one line per prerequisite, and one line that stops the run when one cannot be had.

const label = (name: string) => `prerequisite  ${name.padEnd(11)} `

/** Prints the prerequisite's line. */
export function say(name: string, text: string): void {
  process.stdout.write(`${label(name)}${text}\n`)
}

/** Starts the prerequisite's line before slow work; `finish` completes the same line. */
export function begin(name: string, text: string): { finish(text: string): void } {
  process.stdout.write(`${label(name)}${text}`)
  return { finish: (rest) => process.stdout.write(`${rest}\n`) }
}

/** Why the run cannot go on, in one line naming what to do. */
export class Unmet extends Error {
  readonly prerequisite: string

  constructor(prerequisite: string, message: string) {
    super(message)
    this.prerequisite = prerequisite
  }

  line(): string {
    return `${label(this.prerequisite)}${this.message}`
  }
}
