// Renders the served OpenAPI document with Swagger UI, from the assets this service bundles: no CDN,
// no telemetry, no external fonts, and no call to the public validator.
import { tryItFields } from './try-it-fields.ts'

type SwaggerUIBundle = (options: Record<string, unknown>) => unknown
declare global {
  interface Window {
    SwaggerUIBundle?: SwaggerUIBundle
  }
}

const DOCUMENT_URL = '/v1/openapi.json'

async function render(): Promise<void> {
  const ui = window.SwaggerUIBundle
  if (!ui) return
  // fetched here rather than by Swagger UI, to choose what try-it pre-fills (try-it-fields.ts)
  const res = await fetch(DOCUMENT_URL).catch(() => null)
  // a refused read (a 429: /docs counts against the rate limit) is left to Swagger UI to report
  const source = res?.ok ? { spec: tryItFields(await res.json()) } : { url: DOCUMENT_URL }
  ui({
    ...source,
    dom_id: '#reference',
    deepLinking: true,
    // try-it is on for every operation; the key goes in through "Authorize" and stays in the page
    tryItOutEnabled: true,
    persistAuthorization: false,
    validatorUrl: null,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
  })
}

// the bundle is a classic deferred script; this module runs after it
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void render())
else void render()
