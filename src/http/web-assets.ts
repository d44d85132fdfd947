// The browser pages the service serves beside the API (/docs and /dashboard): bytes prepared by the
// composition root, so the app builder itself reads no files.

export type WebAsset = { body: Buffer; type: string }

/** URL path → asset, e.g. `/dashboard` → the page, `/dashboard/app.ts` → its script. */
export type WebAssets = ReadonlyMap<string, WebAsset>
