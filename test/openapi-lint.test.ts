// The served OpenAPI document as third-party tools read it: @redocly/cli's recommended ruleset, with
// `operation-description` on as well (Spectral's spectral:oas asks for it too), finds neither an
// error nor a warning.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'
import { REPO_ROOT, tempDir } from './support/service-process.ts'
import { useTestWorld } from './support/test-world.ts'

const REDOCLY = path.join(REPO_ROOT, 'node_modules/@redocly/cli/bin/cli.js')

describe('the OpenAPI document under @redocly/cli lint (recommended, operation-description)', () => {
  const { api } = useTestWorld()

  it('has no error and no warning', async () => {
    const res = await api.get('/v1/openapi.json')
    assert.equal(res.status, 200)
    const tmp = tempDir('cs-openapi-')
    try {
      const file = path.join(tmp.dir, 'openapi.json')
      writeFileSync(file, res.text)
      const config = path.join(tmp.dir, 'redocly.yaml')
      writeFileSync(config, 'extends:\n  - recommended\nrules:\n  operation-description: warn\n')
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [REDOCLY, 'lint', file, '--config', config, '--format', 'json'],
        { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
      ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }))
      const report = JSON.parse(stdout) as {
        totals: { errors: number; warnings: number }
        problems: unknown[]
      }
      assert.deepEqual(
        report.totals,
        { ...report.totals, errors: 0, warnings: 0 },
        JSON.stringify(report.problems, null, 2),
      )
    } finally {
      tmp.remove()
    }
  })
})
