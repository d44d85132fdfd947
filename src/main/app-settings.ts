// From the configuration to the values the api and the rate limiter are built with: the one road
// every setting travels. The TLS files are read here, so buildApp does no I/O.
import { readFileSync } from 'node:fs'
import type { Config } from '../config/config.ts'
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
    tls:
      config.tlsCertFile && config.tlsKeyFile
        ? { cert: readFileSync(config.tlsCertFile), key: readFileSync(config.tlsKeyFile) }
        : null,
    connectionLimits: {
      headersTimeoutMs: config.httpHeadersTimeoutS * 1000,
      requestTimeoutMs: config.httpRequestTimeoutS * 1000,
      idleTimeoutMs: config.httpIdleTimeoutS * 1000,
      keepAliveTimeoutMs: config.httpKeepAliveTimeoutS * 1000,
    },
    streamMaxPerAddress: config.streamMaxPerAddress,
  }
}
