// GET /docs and /dashboard with their assets: the offline API reference and the dashboard. They
// need no key and are not rate limited (they carry no data; the API calls they make are counted
// like any other). Left out of the OpenAPI document: they are pages, not API.
import { PATHS } from '../paths.ts'
import { ProblemError } from '../problems.ts'
import type { TypedApp } from '../typed-app.ts'
import type { WebAssets } from '../web-assets.ts'

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

  const serve = (path: string) => {
    const asset = assets.get(path)
    if (!asset) throw new ProblemError('not-found', { detail: 'There is no such page.' })
    return asset
  }
  for (const route of [PATHS.docs, PATHS.docsAsset, PATHS.dashboard, PATHS.dashboardAsset]) {
    app.get(route, { schema: { hide: true } }, async (request, reply) => {
      const path = request.url.split('?')[0]!.replace(/\/+$/, '')
      const asset = serve(path)
      // pages and scripts revalidate, so a redeploy shows at once; vendored libraries change only with the package
      reply.header('cache-control', path.includes('/vendor/') ? 'public, max-age=86400' : 'no-cache')
      if (asset.type.startsWith('text/html')) reply.header('content-security-policy', csp)
      return reply.type(asset.type).send(asset.body)
    })
  }
}
