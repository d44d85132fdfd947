#!/usr/bin/env node
// The `contest-signals` command (package.json `bin`). A checkout runs its TypeScript as it is: Node
// strips the types, and nothing is built. An installed copy has no src/cli (npm pack ships the
// JavaScript its prepack built into dist/), and Node refuses to strip types under node_modules
// anyway, so it runs dist/.
import { existsSync } from 'node:fs'

const source = new URL('../src/cli/main.ts', import.meta.url)
await import(existsSync(source) ? source.href : new URL('../dist/cli/main.js', import.meta.url).href)
