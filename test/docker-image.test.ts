// The container image starts: its file set is assembled exactly as the Dockerfile's COPY lines make
// it, and serve, api and engine run from that set alone (a runtime file left out of the image — the
// dashboard's web/ once was — fails here, not on an operator's first `docker run`). There is no
// Docker daemon in the test machine: the image's node_modules (`npm ci --omit=dev`) is stood in for
// by the repository's, which holds the same production dependencies and more.
import assert from 'node:assert/strict'
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { REPO_ROOT, startProcess, tempDir } from './support/service-process.ts'
import { OFF_PAUSE_START } from './support/timeline.ts'
import { eventually } from './support/wait.ts'

type Image = {
  workdir: string
  copies: { from: string[]; to: string }[]
  env: Record<string, string>
  cmd: string[]
}

/** The Dockerfile's WORKDIR, COPY, ENV and CMD, joined over its line continuations. */
function readDockerfile(): Image {
  const text = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ')
  const image: Image = { workdir: '/', copies: [], env: {}, cmd: [] }
  for (const line of text.split('\n').map((l) => l.trim())) {
    const [instruction, ...words] = line.split(/\s+/)
    if (instruction === 'WORKDIR') image.workdir = words[0]!
    if (instruction === 'COPY') image.copies.push({ from: words.slice(0, -1), to: words.at(-1)! })
    if (instruction === 'ENV')
      for (const pair of words) {
        const eq = pair.indexOf('=')
        image.env[pair.slice(0, eq)] = pair.slice(eq + 1)
      }
    if (instruction === 'CMD') image.cmd = JSON.parse(line.slice('CMD'.length)) as string[]
  }
  return image
}

/** The files the COPY lines put in the image, under `root` standing for the image's WORKDIR. */
function assemble(image: Image, root: string): void {
  for (const { from, to } of image.copies) {
    const target = path.resolve(root, to)
    for (const source of from) {
      const dest = to.endsWith('/') || from.length > 1 ? path.join(target, path.basename(source)) : target
      mkdirSync(path.dirname(dest), { recursive: true })
      cpSync(path.join(REPO_ROOT, source), dest, { recursive: true })
    }
  }
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'))
}

describe('the container image', () => {
  const image = readDockerfile()
  const tmp = tempDir('cs-image-')
  const app = path.join(tmp.dir, 'app')
  const data = path.join(tmp.dir, 'data')
  // the image's settings, with its /data volume and its listen address moved into the test's reach
  const envOf = (extra: Record<string, string>): Record<string, string> => ({
    ...image.env,
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: `sqlite:${path.join(data, 'contest-signals.db')}`,
    BOOTSTRAP_KEY_FILE: path.join(data, 'bootstrap-key.txt'),
    SIM_START: OFF_PAUSE_START,
    SIM_BACKFILL_DAYS: '0',
    ...extra,
  })
  const cli = () => path.join(app, image.cmd[1]!)

  before(() => {
    mkdirSync(data, { recursive: true })
    assemble(image, app)
  })
  after(() => tmp.remove())

  it('runs its CMD (serve) from the COPY lines alone: health, the dashboard and the docs answer, and the key is where the Dockerfile says', async () => {
    assert.deepEqual(image.cmd.slice(0, 2), ['node', 'src/cli/main.ts'])
    assert.equal(path.basename(image.env.BOOTSTRAP_KEY_FILE ?? ''), 'bootstrap-key.txt')
    const serve = startProcess(image.cmd.slice(2), envOf({}), { cli: cli() })
    try {
      const url = await serve.url
      for (const page of ['/v1/health', '/dashboard', '/docs', '/v1/openapi.json'])
        assert.equal((await fetch(`${url}${page}`)).status, 200, page)
      assert.match(readFileSync(path.join(data, 'bootstrap-key.txt'), 'utf8'), /cs_/)
    } finally {
      await serve.kill('SIGTERM')
    }
  })

  it('runs api and engine as separate processes on one store', async () => {
    const env = envOf({ DATABASE_URL: `sqlite:${path.join(data, 'split.db')}`, BOOTSTRAP_KEY: 'off' })
    const engine = startProcess(['engine'], env, { cli: cli() })
    const api = startProcess(['api'], env, { cli: cli() })
    try {
      const url = await api.url
      const health = await eventually(
        async () => (await (await fetch(`${url}/v1/health`)).json()) as { checks: { engine: string } },
        (body) => body.checks.engine === 'ok',
        // two fresh processes warming up beside the rest of the suite on two cores: the engine's first
        // heartbeat came after 20 s once in a full CI run (under 6 s alone)
        60_000,
      )
      assert.equal(health.checks.engine, 'ok')
      assert.equal(engine.child.exitCode, null)
    } finally {
      await Promise.all([api.kill('SIGTERM'), engine.kill('SIGTERM')])
    }
  })
})
