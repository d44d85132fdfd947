// `npm run generate`: writes src/generated/api-types.ts from the OpenAPI document the API serves,
// as committed at the repository's docs/openapi.json (`npm run openapi` there refreshes it), or from
// the file or URL given as the first argument.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { generateTypes } from './openapi-to-ts.ts'

const source = process.argv[2] ?? path.resolve(import.meta.dirname, '../../../docs/openapi.json')
const doc = /^https?:\/\//.test(source)
  ? await (await fetch(source)).json()
  : JSON.parse(readFileSync(source, 'utf8'))
const target = path.resolve(import.meta.dirname, '../src/generated/api-types.ts')
writeFileSync(target, generateTypes(doc))
console.log(`wrote ${target} from ${source}`)
