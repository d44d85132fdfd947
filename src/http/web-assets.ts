// The browser pages the service serves beside the API (/docs and /dashboard): representations
// prepared by the composition root (bytes, a strong ETag, gzip and br variants made once on first
// demand), so the app builder reads no files and no request compresses a page again.
import type { Representation } from './representation.ts'

export type WebAsset = Representation

/** URL path → asset, e.g. `/dashboard` → the page, `/dashboard/app.ts` → its script. */
export type WebAssets = ReadonlyMap<string, WebAsset>
