// Reads the browser pages once at start: the HTML and CSS as they are, the TypeScript modules with
// their types stripped (so the dashboard runs the very domain code the CLI's backtest runs, with no
// build step), and the vendored libraries from their npm packages.
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire, stripTypeScriptTypes } from 'node:module'
import path from 'node:path'
import { createRepresentation } from '../http/representation.ts'
import type { WebAsset, WebAssets } from '../http/web-assets.ts'

const ROOT = path.resolve(import.meta.dirname, '../..')
const WEB = path.join(ROOT, 'web')
const DOMAIN = path.join(ROOT, 'src/domain')

/** Domain modules the dashboard imports (their own imports follow automatically). */
const DASHBOARD_DOMAIN_ENTRIES = [
  'backtest.ts',
  'contest-view.ts',
  'venue-refs.ts',
  'venue-windows.ts',
  'venues.ts',
]

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  // served as JavaScript: browsers go by the media type, not the extension
  '.ts': 'text/javascript; charset=utf-8',
}

let loaded: WebAssets | undefined

/** The pages, read once per process: their compressed variants are then made once too. */
export function loadWebAssets(): WebAssets {
  loaded ??= readWebAssets()
  return loaded
}

function readWebAssets(): WebAssets {
  const assets = new Map<string, WebAsset>()
  const put = (url: string, file: string) => {
    const type = TYPES[path.extname(file)] ?? 'application/octet-stream'
    const body = file.endsWith('.ts')
      ? Buffer.from(toJavaScript(readFileSync(file, 'utf8')))
      : readFileSync(file)
    assets.set(url, createRepresentation(body, type))
  }

  put('/dashboard', path.join(WEB, 'dashboard/index.html'))
  put('/docs', path.join(WEB, 'docs/index.html'))
  for (const dir of ['dashboard', 'docs'] as const) {
    for (const name of readdirSync(path.join(WEB, dir))) {
      if (name.endsWith('.ts') || name.endsWith('.css')) put(`/${dir}/${name}`, path.join(WEB, dir, name))
    }
  }
  for (const file of domainModules(DASHBOARD_DOMAIN_ENTRIES))
    put(`/dashboard/domain/${file}`, path.join(DOMAIN, file))

  const packageDir = (name: string) =>
    path.dirname(createRequire(import.meta.url).resolve(`${name}/package.json`))
  const uplot = path.join(packageDir('uplot'), 'dist')
  put('/dashboard/vendor/uPlot.esm.js', path.join(uplot, 'uPlot.esm.js'))
  put('/dashboard/vendor/uPlot.min.css', path.join(uplot, 'uPlot.min.css'))
  const swagger = packageDir('swagger-ui-dist')
  put('/docs/vendor/swagger-ui-bundle.js', path.join(swagger, 'swagger-ui-bundle.js'))
  put('/docs/vendor/swagger-ui.css', path.join(swagger, 'swagger-ui.css'))
  return assets
}

/** The entry modules and every domain module they import, as file names within src/domain. */
function domainModules(entries: readonly string[]): string[] {
  const found = new Set<string>()
  const visit = (file: string) => {
    if (found.has(file)) return
    found.add(file)
    const source = toJavaScript(readFileSync(path.join(DOMAIN, file), 'utf8'))
    for (const m of source.matchAll(/from '\.\/([a-z0-9-]+\.ts)'/g)) visit(m[1]!)
  }
  for (const entry of entries) visit(entry)
  return [...found]
}

/**
 * Node's own type stripper (the one that runs this service). It is marked experimental and warns
 * once per process; that warning says nothing to an operator, so it is kept out of the log.
 */
function toJavaScript(source: string): string {
  const emitWarning = process.emitWarning
  process.emitWarning = () => {}
  try {
    return stripTypeScriptTypes(source, { mode: 'strip' })
  } finally {
    process.emitWarning = emitWarning
  }
}
