// Tests of request signing with a key pair made for the test: verifiable, query excluded.
import assert from 'node:assert/strict'
import { constants, generateKeyPairSync, type KeyObject, verify } from 'node:crypto'
import { describe, it } from 'node:test'
import { createRequestSigner, signingPayload } from './request-signing.ts'

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

const verifies = (payload: string, signatureB64: string, key: KeyObject = publicKey): boolean =>
  verify(
    'sha256',
    Buffer.from(payload),
    { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
    Buffer.from(signatureB64, 'base64'),
  )

describe('createRequestSigner', () => {
  const sign = createRequestSigner({ keyId: 'key-123', privateKeyPem })
  const url = new URL(
    'https://external-api.kalshi.com/trade-api/v2/markets?series_ticker=KXBTC15M&status=open',
  )

  it('sends the key id, the ms timestamp and a PSS signature the public key verifies', () => {
    const headers = sign('get', url, 1_790_363_701_123.7)
    assert.deepEqual(Object.keys(headers).sort(), [
      'KALSHI-ACCESS-KEY',
      'KALSHI-ACCESS-SIGNATURE',
      'KALSHI-ACCESS-TIMESTAMP',
    ])
    assert.equal(headers['KALSHI-ACCESS-KEY'], 'key-123')
    assert.equal(headers['KALSHI-ACCESS-TIMESTAMP'], '1790363701123')
    const signature = headers['KALSHI-ACCESS-SIGNATURE'] as string
    assert.ok(verifies('1790363701123GET/trade-api/v2/markets', signature))
  })

  it('signs the full path without the query', () => {
    assert.equal(signingPayload('1', 'get', url), '1GET/trade-api/v2/markets')
    const signature = sign('GET', url, 5)['KALSHI-ACCESS-SIGNATURE'] as string
    assert.equal(verifies(`5GET/trade-api/v2/markets${url.search}`, signature), false)
    assert.equal(verifies('5GET/markets', signature), false)
  })

  it('does not verify under another key', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey
    const signature = sign('GET', url, 5)['KALSHI-ACCESS-SIGNATURE'] as string
    assert.equal(verifies('5GET/trade-api/v2/markets', signature, other), false)
  })

  it('refuses a key that is not a PEM private key when created', () => {
    assert.throws(() => createRequestSigner({ keyId: 'k', privateKeyPem: 'not a key' }))
  })
})
