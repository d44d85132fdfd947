// Checks a response against the OpenAPI document the server serves: the path template, the declared
// status and media type, and (Ajv 2020-12 + formats) the body against the declared schema; a HEAD
// answer has no body, and its declared response no content.
import assert from 'node:assert/strict'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

// ajv-formats is CommonJS with a default export; under Node's ESM loader it arrives as the module.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void

type OpenApiDocument = {
  paths: Record<string, Record<string, { responses?: Record<string, Response> }>>
}
type Response = { content?: Record<string, { schema?: unknown }> }

export type ContractChecker = {
  /**
   * Asserts that a response body matches the document. Paths and statuses the document leaves out
   * on purpose (problem pages, 405s, unknown paths) are checked only against the Problem schema.
   */
  check(method: string, url: string, status: number, contentType: string | null, body: string): void
  /** Asserts that one SSE frame matches the stream schema the document declares for `path`. */
  checkStreamEvent(path: string, event: string, id: string, data: string): void
  /** The response object the document declares, or undefined. */
  declared(method: string, url: string, status: number): Response | undefined
}

const DOC_ID = 'https://contract.test/openapi.json'

export function createContractChecker(document: unknown): ContractChecker {
  const doc = structuredClone(document) as OpenApiDocument
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  ajv.addSchema(rewriteRefs(doc) as object, DOC_ID)
  const compiled = new Map<string, ValidateFunction>()
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    isStatic: !template.includes('{'),
  }))
  // Static paths win over templated ones, as in the router (/v1/contests/active vs /{ticker}).
  templates.sort((a, b) => Number(b.isStatic) - Number(a.isStatic))

  function templateOf(url: string): string | undefined {
    const path = new URL(url, 'http://x').pathname
    return templates.find((t) => t.pattern.test(path))?.template
  }

  function validator(pointer: string): ValidateFunction {
    let fn = compiled.get(pointer)
    if (!fn) {
      fn = ajv.compile({ $ref: `${DOC_ID}#${pointer}` })
      compiled.set(pointer, fn)
    }
    return fn
  }

  function declared(method: string, url: string, status: number): Response | undefined {
    const template = templateOf(url)
    if (!template) return undefined
    return doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(status)]
  }

  return {
    declared,
    checkStreamEvent(path, event, id, data) {
      const template = templateOf(path)
      assert.ok(template, `${path} is not in the document`)
      const pointer = `/paths/${escapePointer(template)}/get/responses/200/content/${escapePointer('text/event-stream')}/schema`
      assertValid(validator(pointer), { event, id, data }, `${path} frame ${event}`)
      // JSON Schema does not apply contentSchema; check the data against it by hand.
      const schema = ajv.getSchema(`${DOC_ID}#${pointer}`)?.schema as { anyOf?: unknown[] } | undefined
      const index = (schema?.anyOf ?? []).findIndex((s) =>
        (s as { properties: { event: { enum?: string[]; const?: string } } }).properties.event.enum?.includes(
          event,
        ),
      )
      assert.ok(index >= 0, `${path} declares no event named ${event}`)
      assertValid(
        validator(`${pointer}/anyOf/${index}/properties/data/contentSchema`),
        JSON.parse(data),
        `${event} data`,
      )
    },
    check(method, url, status, contentType, body) {
      if (method.toUpperCase() === 'HEAD') {
        // headers only, as the document must declare it: the GET's statuses, no content
        assert.equal(body, '', `HEAD ${url} ${status}: a body`)
        const template = templateOf(url)
        const operation = template ? doc.paths[template]?.head : undefined
        if (!operation || status === 405) return
        const response = operation.responses?.[String(status)]
        assert.ok(response, `HEAD ${template} does not declare status ${status}`)
        assert.equal(response.content, undefined, `HEAD ${template} ${status} declares a body`)
        return
      }
      const mediaType = contentType?.split(';')[0]?.trim() ?? null
      const isJson = mediaType === 'application/json' || mediaType === 'application/problem+json'
      if (!isJson || body === '') return
      const parsed: unknown = JSON.parse(body)
      const template = templateOf(url)
      const operation = template ? doc.paths[template]?.[method.toLowerCase()] : undefined
      if (!operation || status === 405) {
        assert.equal(mediaType, 'application/problem+json', `${method} ${url} ${status}: not a problem`)
        assertValid(validator('/components/schemas/Problem'), parsed, `${method} ${url} ${status}`)
        return
      }
      const response = operation.responses?.[String(status)]
      assert.ok(response, `${method} ${template} does not declare status ${status}`)
      assert.ok(
        response.content?.[mediaType],
        `${method} ${template} ${status} does not declare ${mediaType} (declares ${Object.keys(response.content ?? {})})`,
      )
      const pointer = `/paths/${escapePointer(template!)}/${method.toLowerCase()}/responses/${status}/content/${escapePointer(mediaType)}/schema`
      assertValid(validator(pointer), parsed, `${method} ${template} ${status} ${mediaType}`)
    },
  }
}

function assertValid(fn: ValidateFunction, value: unknown, where: string): void {
  const ok = fn(value)
  assert.ok(ok, `${where}: body does not match the OpenAPI document: ${JSON.stringify(fn.errors)}`)
}

/** JSON Pointer escaping plus the URI-fragment encoding Ajv expects. */
function escapePointer(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))
}

/** `#/components/…` refs become absolute so schemas compiled from deep pointers still resolve. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs)
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${DOC_ID}${v}` : rewriteRefs(v)
    }
    return out
  }
  return node
}
