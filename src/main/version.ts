// The package version, read once from package.json, reported by health and the OpenAPI document.
import { readFileSync } from 'node:fs'

export const VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version
