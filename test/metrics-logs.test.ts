// Structured logs of a real run (decisions §7): request lines carry the request id; no line carries
// an API key, an Authorization header or the database password; refusals (401, 429) are not errors.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { dropSchema, uniqueSchemaUrl } from './support/postgres.ts'
import { type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { activeContest } from './support/sim-service.ts'
import { openStream } from './support/sse-client.ts'
import { OFF_PAUSE_START } from './support/timeline.ts'
import { waitFor } from './support/wait.ts'

const PASSWORD = 'secretpw'
/** Shaped like a key but never issued: it is refused, and must not be logged either. */
const WRONG_KEY = 'cs_NotAKeyThisServerIssuedXYZ123'

type LogLine = {
  level: number
  msg?: string
  reqId?: string
  store?: string
  method?: string
  path?: string
  status?: number
  bytes?: number
  durationMs?: number
  address?: string
}

describe('logs of a PostgreSQL-backed run with keys in use', () => {
  // The local server trusts every connection, so the password is accepted and ignored.
  const databaseUrl = (() => {
    const u = new URL(uniqueSchemaUrl('metrics_logs'))
    u.password = PASSWORD
    return u.toString()
  })()
  const keyDir = tempDir()
  let service: ServiceProcess
  let key: string
  let raw: string[]
  let lines: LogLine[]

  before(async () => {
    service = startProcess(['serve'], {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      SIM_SPEED: '60',
      SIM_START: OFF_PAUSE_START,
      SIM_SEED: '3',
      SIM_BACKFILL_DAYS: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_BURST: '4',
      // a store that cannot be reached is an error, rightly; on a machine loaded past a 2 s
      // connection wait (a CI run beside a model look) the engine logged one, which is not what
      // this test is about
      PG_CONNECT_TIMEOUT_MS: '30000',
      BOOTSTRAP_KEY_FILE: path.join(keyDir.dir, 'bootstrap-key.txt'),
    })
    const url = await service.url
    key = await service.bootstrapKey
    const active = `${url}/v1/contests/active?series=KXBTC15M`
    const stream = await openStream(`${url}/v1/stream/contests?series=KXBTC15M`, { key })
    assert.equal(stream.status, 200)
    await activeContest(url, key)
    assert.equal((await fetch(active, { headers: { Authorization: `Bearer ${WRONG_KEY}` } })).status, 401)
    // A client that puts its key in the URL still must not have it written down.
    assert.equal((await fetch(`${url}/v1/contests/active?api_key=${key}`)).status, 401)
    await waitFor('a 429', async () => ((await fetch(active)).status === 429 ? true : undefined))
    stream.close()
    await service.kill('SIGTERM')
    raw = service
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
    lines = raw.map((l) => JSON.parse(l) as LogLine)
  })
  after(async () => {
    await service?.kill('SIGTERM')
    await dropSchema(databaseUrl)
    keyDir.remove()
  })

  it('never contains the key, a refused key or the database password', () => {
    assert.ok(raw.length > 10, `${raw.length} log lines`)
    for (const line of raw) {
      assert.ok(!line.includes(key), `key in: ${line}`)
      assert.ok(!line.includes(WRONG_KEY), `refused key in: ${line}`)
      assert.ok(!line.includes(PASSWORD), `password in: ${line}`)
      assert.ok(!/bearer/i.test(line), `Authorization header in: ${line}`)
    }
    // The key is on no line of stdout at all: it went to the 0600 file the log names.
    assert.ok(!service.stdout().includes(key))
  })

  it('names the store it opened without the password', () => {
    const opened = lines.find((l) => l.msg === 'store opened')
    const shown = new URL(databaseUrl)
    shown.password = '***'
    shown.search = ''
    assert.ok(opened?.store?.startsWith(shown.toString()), opened?.store)
  })

  it('writes one access line per answered request, with its request id', () => {
    const requestLines = lines.filter((l) => l.msg === 'request')
    // the stream (when it ended), the 200, two 401s and at least one 429: one line each
    assert.ok(requestLines.length >= 5, `${requestLines.length} request lines`)
    for (const line of requestLines) {
      assert.match(line.reqId ?? '', /^[A-Za-z0-9._:-]+$/, JSON.stringify(line))
      assert.equal(line.level, 30)
      assert.equal(typeof line.bytes, 'number')
      assert.equal(typeof line.durationMs, 'number')
      assert.match(line.address ?? '', /^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/)
    }
    const statuses = new Set(requestLines.map((l) => l.status))
    for (const status of [200, 401, 429]) assert.ok(statuses.has(status), `no line for a ${status}`)
    assert.ok(requestLines.some((l) => l.path === '/v1/stream/contests?series=KXBTC15M' && l.status === 200))
    assert.ok(requestLines.some((l) => l.path === '/v1/contests/active?api_key=cs_[redacted]'))
  })

  it('logs refusals (401, 429) below error level: a run like this one has no error lines', () => {
    const errors = lines.filter((l) => l.level >= 50)
    assert.deepEqual(errors, [])
  })
})
