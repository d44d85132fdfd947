// From the configuration to the values the api and the rate limiter are built with: the one road
// every setting travels. The TLS files are read here, so buildApp does no I/O.
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { type Config, ConfigError } from '../config/config.ts'
import type { BucketPolicy } from '../domain/token-bucket.ts'
import type { AppSettings } from '../http/app-settings.ts'

/** The token bucket per client address: the buckets, the 429 headers, the OpenAPI document and the problem page. */
export function rateLimitPolicy(config: Pick<Config, 'rateLimitBurst' | 'rateLimitPerSec'>): BucketPolicy {
  return { burst: config.rateLimitBurst, perSec: config.rateLimitPerSec }
}

export function appSettingsFrom(config: Config): AppSettings {
  return {
    publicBaseUrl: config.publicBaseUrl,
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    rateLimit: rateLimitPolicy(config),
    // TLS_CERT_FILE + TLS_KEY_FILE: serve HTTPS directly (decisions §2).
    tls: config.tlsCertFile && config.tlsKeyFile ? readTls(config.tlsCertFile, config.tlsKeyFile) : null,
    connectionLimits: {
      headersTimeoutMs: config.httpHeadersTimeoutS * 1000,
      requestTimeoutMs: config.httpRequestTimeoutS * 1000,
      idleTimeoutMs: config.httpIdleTimeoutS * 1000,
      keepAliveTimeoutMs: config.httpKeepAliveTimeoutS * 1000,
    },
    streamMaxPerAddress: config.streamMaxPerAddress,
    fastPath: config.fastPath,
  }
}

/**
 * Reads and checks both TLS files, so a missing or wrong file stops the program naming its variable
 * (rather than a bare ENOENT, or a TLS error from deep inside the server).
 */
function readTls(certFile: string, keyFile: string): { cert: Buffer; key: Buffer } {
  const problems: string[] = []
  const read = (variable: string, file: string, check: (pem: Buffer) => void, what: string) => {
    let pem: Buffer
    try {
      pem = readFileSync(file)
    } catch (err) {
      const code = (err as { code?: unknown }).code
      problems.push(
        `${variable}=${JSON.stringify(file)} cannot be read (${typeof code === 'string' ? code : 'unreadable'})`,
      )
      return Buffer.alloc(0)
    }
    try {
      check(pem)
    } catch {
      problems.push(`${variable}=${JSON.stringify(file)} is not a PEM ${what}`)
    }
    return pem
  }
  const cert = read('TLS_CERT_FILE', certFile, (pem) => new X509Certificate(pem), 'certificate')
  const key = read('TLS_KEY_FILE', keyFile, (pem) => createPrivateKey(pem), 'private key')
  if (problems.length > 0) throw new ConfigError(problems)
  return { cert, key }
}
