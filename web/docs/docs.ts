// Renders the served OpenAPI document with Swagger UI, from the assets this service bundles: no CDN,
// no telemetry, no external fonts, and no call to the public validator.

type SwaggerUIBundle = (options: Record<string, unknown>) => unknown
declare global {
  interface Window {
    SwaggerUIBundle?: SwaggerUIBundle
  }
}

function render(): void {
  const ui = window.SwaggerUIBundle
  if (!ui) return
  ui({
    url: '/v1/openapi.json',
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
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', render)
else render()

export {}
