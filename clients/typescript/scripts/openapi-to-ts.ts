// TypeScript types from the Contest Signals OpenAPI document: each shared schema as a type, the
// `data` of each stream event by name, and each JSON operation's parameters and 200 body. Only the
// JSON Schema the document uses is understood ($ref, anyOf, enum, object, array, scalars); anything
// else fails loudly, so a new construct in the document cannot be typed as something it is not.

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON walked by key
type Json = any

const HEADER = `// Generated from the Contest Signals OpenAPI document (docs/openapi.json, the served document) by
// clients/typescript/scripts/generate-types.ts: do not edit. Regenerate with \`npm run generate\`.
`

export function generateTypes(doc: Json): string {
  const out: string[] = [HEADER]
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}) as [string, Json][])
    out.push(`${comment(schema.description, '')}export type ${name} = ${typeOf(schema, '')}\n`)
  out.push(streamEvents(doc))
  out.push(operations(doc))
  return out.join('\n')
}

function typeOf(schema: Json, indent: string): string {
  if (schema === true || schema === undefined) return 'unknown'
  if (typeof schema.$ref === 'string') {
    const m = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(schema.$ref)
    if (!m) throw new Error(`unsupported $ref ${schema.$ref}`)
    return m[1]!
  }
  if (Array.isArray(schema.anyOf)) return union(schema.anyOf.map((s: Json) => typeOf(s, indent)))
  if (Array.isArray(schema.enum)) return union(schema.enum.map((v: unknown) => JSON.stringify(v)))
  if (Array.isArray(schema.type))
    return union(schema.type.map((t: string) => typeOf({ ...schema, type: t }, indent)))
  switch (schema.type) {
    case 'string':
      return 'string'
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'null':
      return 'null'
    case 'array': {
      const item = typeOf(schema.items, indent)
      return /^[A-Za-z0-9_]+$/.test(item) ? `${item}[]` : `Array<${item}>`
    }
    case 'object':
      return objectType(schema, indent)
    default:
      throw new Error(`unsupported schema ${JSON.stringify(schema).slice(0, 120)}`)
  }
}

function objectType(schema: Json, indent: string): string {
  const properties = Object.entries(schema.properties ?? {}) as [string, Json][]
  if (properties.length === 0) {
    const values = schema.additionalProperties
    return `Record<string, ${values && values !== true ? typeOf(values, indent) : 'unknown'}>`
  }
  const required = new Set<string>(schema.required ?? [])
  const inner = `${indent}  `
  const lines = properties.map(
    ([key, s]) =>
      `${comment(s.description, inner)}${inner}${propertyName(key)}${required.has(key) ? '' : '?'}: ${typeOf(s, inner)}`,
  )
  return `{\n${lines.join('\n')}\n${indent}}`
}

function union(members: string[]): string {
  return [...new Set(members)].join(' | ')
}

function propertyName(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key)
}

function comment(description: unknown, indent: string): string {
  if (typeof description !== 'string' || description === '') return ''
  return `${indent}/** ${description.replaceAll('*/', '*\\/')} */\n`
}

/** The stream's frames: each event name with the schema of its `data` (contentSchema). */
function streamEvents(doc: Json): string {
  const lines: string[] = []
  for (const operations of Object.values(doc.paths ?? {}) as Json[]) {
    const frames = operations.get?.responses?.['200']?.content?.['text/event-stream']?.schema?.anyOf
    for (const frame of frames ?? []) {
      const names: string[] = frame.properties.event.enum ?? [frame.properties.event.const]
      const data = typeOf(frame.properties.data.contentSchema, '  ')
      for (const name of names) lines.push(`  ${JSON.stringify(name)}: ${data}`)
    }
  }
  return `/** The parsed \`data\` of each stream event, by event name. */\nexport type StreamEventData = {\n${lines.join('\n')}\n}\n`
}

/** Each GET that answers JSON: its path, its path and query parameters, and its 200 body. */
function operations(doc: Json): string {
  const entries: string[] = []
  for (const [path, ops] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    const op = ops.get
    const body = op?.responses?.['200']?.content?.['application/json']?.schema
    if (!op?.operationId || body === undefined) continue
    const params = (op.parameters ?? []).filter((p: Json) => p.in === 'path' || p.in === 'query')
    const paramLines = params.map(
      (p: Json) =>
        `${comment(p.description, '      ')}      ${propertyName(p.name)}${p.required ? '' : '?'}: ${typeOf(p.schema, '      ')}`,
    )
    const parameters =
      paramLines.length === 0 ? 'Record<string, never>' : `{\n${paramLines.join('\n')}\n    }`
    entries.push(
      `${comment(op.summary, '  ')}  ${op.operationId}: {\n    path: ${JSON.stringify(path)}\n    parameters: ${parameters}\n    response: ${typeOf(body, '    ')}\n  }`,
    )
  }
  return `/** Each JSON operation by operationId: its path template, parameters (path and query) and 200 body. */\nexport type Operations = {\n${entries.join('\n')}\n}\n`
}
