// `npm run openapi`: writes docs/openapi.json, the document the API serves, for client generators
// and the typed client (clients/typescript). It starts the real `contest-signals api` on a fresh
// temporary store and an ephemeral port, reads /v1/openapi.json, and stops it.
import { writeFileSync } from 'node:fs'
import { startProcess, tempDir } from '../test/support/service-process.ts'
import { committedText, DOCUMENT_BASE_URL, DOCUMENT_FILE } from './openapi-document.ts'

const tmp = tempDir('cs-openapi-')
const api = startProcess(['api'], {
  DATABASE_URL: `sqlite:${tmp.dir}/openapi.db`,
  HOST: '127.0.0.1',
  PORT: '0',
  PUBLIC_BASE_URL: DOCUMENT_BASE_URL,
  BOOTSTRAP_KEY: 'off',
})
try {
  const url = await api.url
  const res = await fetch(`${url}/v1/openapi.json`)
  if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`)
  writeFileSync(DOCUMENT_FILE, committedText(await res.json(), DOCUMENT_BASE_URL))
  console.log(`wrote ${DOCUMENT_FILE}`)
} finally {
  await api.kill()
  tmp.remove()
}
