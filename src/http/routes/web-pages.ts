// GET /, /docs and /dashboard with their assets: a home page linking the others, the offline API
// reference and the dashboard. They need no key and carry no data. Every asset is a representation
// compressed once (ETag, gzip/br variants kept), so a page costs no compression per request. Each
// page is counted by the rate limiter like every endpoint; the dashboard's modules are not (a
// dashboard load fetches more of them than the burst: paths.ts). Left out of the
// OpenAPI document: they are pages, not API.
import { PATHS } from '../paths.ts'
import { ProblemError } from '../problems.ts'
import { createRepresentation, type Representation, sendRepresentation } from '../representation.ts'
import type { TypedApp } from '../typed-app.ts'
import type { WebAssets } from '../web-assets.ts'

const HTML = 'text/html; charset=utf-8'

export function registerWebPages(app: TypedApp, assets: WebAssets, publicBaseUrl: string): void {
  // try-it calls the API at PUBLIC_BASE_URL, which may be another origin than the page's
  const apiOrigin = new URL(publicBaseUrl).origin
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    // Swagger UI and uPlot set inline style attributes
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${apiOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ')
  const home = createRepresentation(homePage(), HTML)

  const serve = (path: string): Representation => {
    const asset = path === PATHS.home ? home : assets.get(path)
    if (!asset) throw new ProblemError('not-found', { detail: 'There is no such page.' })
    return asset
  }
  for (const route of [PATHS.home, PATHS.docs, PATHS.docsAsset, PATHS.dashboard, PATHS.dashboardAsset]) {
    app.get(route, { schema: { hide: true } }, async (request, reply) => {
      const path = request.url.split('?')[0]!.replace(/(.)\/+$/, '$1')
      const asset = serve(path)
      if (asset.contentType.startsWith('text/html')) reply.header('content-security-policy', csp)
      // pages and scripts revalidate (ETag), so a redeploy shows at once; vendored libraries change
      // only with the package
      return sendRepresentation(
        request,
        reply,
        asset,
        path.includes('/vendor/') ? 'public, max-age=86400' : 'no-cache',
      )
    })
  }
}

/** Where a person who opens the service's address in a browser wants to go. */
function homePage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>contest-signals</title>
</head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5">
<h1>contest-signals</h1>
<p>Model signals on 15-minute bitcoin prediction-market contests: a read-only HTTPS + JSON API and a Server-Sent Events stream.</p>
<ul>
<li><a href="${PATHS.dashboard}">Dashboard</a>: the live contest, its signals and settled history</li>
<li><a href="${PATHS.docs}">API reference</a>: every operation, with try-it</li>
<li><a href="${PATHS.openApi}">OpenAPI document</a> (JSON, OpenAPI 3.1.0)</li>
<li><a href="${PATHS.health}">Health</a></li>
</ul>
<p>Every endpoint but the health check needs an API key: <code>Authorization: Bearer cs_…</code>.</p>
</body>
</html>
`
}
