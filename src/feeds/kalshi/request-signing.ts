// Kalshi API-key request signing (venue facts §1.2): RSA-PSS SHA-256 over timestamp + METHOD + path.
// Reads work unsigned; when a key is configured every request is signed, which also covers the
// order-book endpoint whose auth requirement the venue's documents disagree on.
import { constants, createPrivateKey, type KeyObject, sign } from 'node:crypto'
import type { RequestSigner } from '../venue-http/json-client.ts'

export type { RequestSigner }

export type KalshiCredentials = { keyId: string; privateKeyPem: string }

/**
 * The exact bytes signed: the ms timestamp, the upper-case method and the URL's full path (with the
 * `/trade-api/v2` prefix) but without the query string, which the venue excludes.
 */
export function signingPayload(timestampMs: string, method: string, url: URL): string {
  return `${timestampMs}${method.toUpperCase()}${url.pathname}`
}

/** Parses the key once (a bad PEM fails here, at start, not on the first request). */
export function createRequestSigner(credentials: KalshiCredentials): RequestSigner {
  const key: KeyObject = createPrivateKey(credentials.privateKeyPem)
  return (method, url, nowMs) => {
    const timestamp = String(Math.trunc(nowMs))
    const signature = sign('sha256', Buffer.from(signingPayload(timestamp, method, url)), {
      key,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
    })
    return {
      'KALSHI-ACCESS-KEY': credentials.keyId,
      'KALSHI-ACCESS-TIMESTAMP': timestamp,
      'KALSHI-ACCESS-SIGNATURE': signature.toString('base64'),
    }
  }
}
