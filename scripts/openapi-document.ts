// The committed OpenAPI document (docs/openapi.json) and how a served one is compared with it. The
// committed copy is what `contest-signals api` serves at its default base URL; a deployment's served
// document differs only in its base URL (servers, contact, the problem `type` URIs of the examples),
// so a served document is normalised by putting that one URL back before the two are compared.
import path from 'node:path'

export const DOCUMENT_FILE = path.resolve(import.meta.dirname, '../docs/openapi.json')

/** `contest-signals serve` with no PUBLIC_BASE_URL, HOST or PORT set answers here. */
export const DOCUMENT_BASE_URL = 'http://127.0.0.1:8080'

/** The served document's text as committed: the base URL it was served under replaced, 2-space JSON. */
export function committedText(served: unknown, servedBaseUrl: string): string {
  const text = JSON.stringify(served, null, 2).replaceAll(servedBaseUrl, DOCUMENT_BASE_URL)
  return `${text}\n`
}
