import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { gunzipSync, gzipSync, constants as zlibConstants } from 'node:zlib'
import type { TapeHeader, TapeRecord } from './tape-format.ts'
import { MAX_LINE_CHARS, openTape, TapeError } from './tape-reader.ts'
import { openTapeSet } from './tape-set.ts'
import { createTapeWriter } from './tape-writer.ts'

const dir = mkdtempSync(path.join(tmpdir(), 'cs-tape-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const header: TapeHeader = {
  tape: 1,
  venue: 'kalshi',
  series: ['KXBTC15M'],
  sources: ['coinbase', 'kraken'],
  from: '2026-11-20T00:00:00Z',
  to: '2026-11-21T00:00:00Z',
  origin: 'test',
}
const records: TapeRecord[] = [
  { t: 1000, k: 'exchange', status: { exchange_active: true, trading_active: true } },
  { t: 1000, k: 'spot', src: 'coinbase', bid: 100, ask: 101, xt: 990 },
  { t: 1500, k: 'spot', src: 'kraken', px: 100.5 },
  { t: 2000, k: 'market', m: { ticker: 'KXBTC15M-X', status: 'active' } },
  { t: 2500, k: 'book', ticker: 'KXBTC15M-X', ob: { orderbook_fp: { yes_dollars: [], no_dollars: [] } } },
  { t: 3000, k: 'index', id: 'BRTI', v: 100.25 },
]

async function readAll(
  file: string,
  notices: string[] = [],
): Promise<{ header: TapeHeader; records: TapeRecord[] }> {
  const tape = await openTape(file, { onNotice: (m) => notices.push(m) })
  const out: TapeRecord[] = []
  for await (const r of tape.records()) out.push(r)
  return { header: tape.header, records: out }
}

/** The records a faulty tape gives before its fault, and the fault. */
async function readUntilFault(file: string): Promise<{ records: TapeRecord[]; err: TapeError }> {
  const records: TapeRecord[] = []
  try {
    const tape = await openTape(file)
    for await (const r of tape.records()) records.push(r)
  } catch (err) {
    assert.ok(err instanceof TapeError, String(err))
    return { records, err }
  }
  assert.fail('the tape was read without an error')
}

async function failure(file: string): Promise<TapeError> {
  return (await readUntilFault(file)).err
}

const writeLines = (name: string, lines: string[], gz = false): string => {
  const file = path.join(dir, name)
  const text = lines.map((l) => `${l}\n`).join('')
  writeFileSync(file, gz ? gzipSync(text) : text)
  return file
}

describe('tape files', () => {
  for (const name of ['round.ndjson', 'round.ndjson.gz']) {
    it(`round-trips every kind through ${name}, in several batches`, async () => {
      const file = path.join(dir, name)
      const writer = await createTapeWriter(file, { header, flushBytes: 64 })
      for (const r of records) writer.write(r)
      await writer.close()
      const back = await readAll(file)
      assert.deepEqual(back.header, header)
      assert.deepEqual(back.records, records)
      if (name.endsWith('.gz')) assert.equal(readFileSync(file)[0], 0x1f, 'gzip magic')
      else assert.match(readFileSync(file, 'utf8'), /^\{"tape":1/)
    })
  }

  it('counts a batch as not yet written until it is in the file, and flush() waits for every one', async () => {
    const file = path.join(dir, 'unwritten.ndjson.gz')
    const writer = await createTapeWriter(file, { header, flushBytes: 1024 })
    // each batch is handed on at 1 KiB; until the event loop turns (the file read synchronously), none is in the file
    for (let i = 0; i < 200; i++)
      writer.write({ t: 1000 + i, k: 'spot', src: 'coinbase', bid: 100, ask: 101 })
    assert.equal(readFileSync(file).length, 0, 'nothing is in the file before the event loop turns')
    assert.ok(writer.buffered() > 10 * 1024, `${writer.buffered()} bytes counted as not yet written`)
    await writer.flush()
    assert.equal(writer.buffered(), 0)
    assert.ok(writer.size() > 0)
    await writer.close()
    assert.equal((await readAll(file)).records.length, 200)
  })

  it('drains down to a given size by waiting for the oldest batches only, the newer ones still on their way', async () => {
    const file = path.join(dir, 'drained.ndjson.gz')
    const writer = await createTapeWriter(file, { header, flushBytes: 1024 })
    for (let i = 0; i < 400; i++)
      writer.write({ t: 1000 + i, k: 'spot', src: 'coinbase', bid: 100, ask: 101 })
    const before = writer.buffered()
    await writer.drainTo(before / 2)
    const after = writer.buffered()
    assert.ok(after <= before / 2, `${after} of ${before} bytes left unwritten`)
    assert.ok(after > 0, 'the newest batches are not waited for')
    assert.ok(writer.size() > 0, 'the oldest are in the file')
    await writer.close()
    assert.equal((await readAll(file)).records.length, 400)
  })

  it('round-trips a Polymarket tape: Gamma event bodies and per-token CLOB books exactly as returned', async () => {
    const file = path.join(dir, 'polymarket.ndjson.gz')
    const pmHeader: TapeHeader = { ...header, venue: 'polymarket', series: ['btc-updown-15m'] }
    const event = {
      slug: 'btc-updown-15m-1790362800',
      ticker: 'btc-updown-15m-1790362800',
      eventMetadata: { priceToBeat: 83962.48113709, finalPrice: null },
      markets: [
        { outcomes: '["Up", "Down"]', clobTokenIds: '["57", "85"]', outcomePrices: '["0.545", "0.455"]' },
      ],
    }
    const book = {
      asset_id: '57',
      bids: [{ price: '0.54', size: '96.4' }],
      asks: [
        { price: '0.99', size: '18000' },
        { price: '0.555', size: '64.1' },
      ],
      tick_size: '0.001',
    }
    const pm: TapeRecord[] = [
      { t: 1000, k: 'market', m: event },
      { t: 1100, k: 'book', ticker: event.slug, token: '57', ob: book },
      { t: 1200, k: 'book', ticker: event.slug, token: '85', ob: { error: 'No orderbook exists' } },
    ]
    const writer = await createTapeWriter(file, { header: pmHeader })
    for (const r of pm) writer.write(r)
    await writer.close()
    const back = await readAll(file)
    assert.deepEqual(back.header, pmHeader)
    assert.deepEqual(back.records, pm)
  })

  it('keeps a book record’s `st: 404` (the venue’s "no book") and refuses any other `st`, naming the line', async () => {
    const noBook: TapeRecord = { t: 1, k: 'book', ticker: 'btc-updown-15m-0', token: '57', ob: null, st: 404 }
    const kept = writeLines('no-book.ndjson', [JSON.stringify(header), JSON.stringify(noBook)])
    assert.deepEqual((await readAll(kept)).records, [noBook])
    const file = writeLines('bad-status.ndjson', [
      JSON.stringify(header),
      JSON.stringify({ ...noBook, st: 500 }),
    ])
    const err = await failure(file)
    assert.match(err.message, /\.ndjson(?:\.gz)?: line 2: book "st" must be 404/)
    const { token: _, ...tokenless } = noBook as { token: string }
    const orphan = writeLines('no-book-tokenless.ndjson', [JSON.stringify(header), JSON.stringify(tokenless)])
    assert.match(
      (await failure(orphan)).message,
      /\.ndjson(?:\.gz)?: line 2: book "st": 404 .* needs "token"/,
    )
  })

  it('refuses a book record whose token is not a non-empty string, naming the line', async () => {
    const file = writeLines('bad-token.ndjson', [
      JSON.stringify(header),
      JSON.stringify({ t: 1, k: 'book', ticker: 'btc-updown-15m-0', token: 57, ob: {} }),
    ])
    const err = await failure(file)
    assert.match(err.message, /\.ndjson(?:\.gz)?: line 2: book "token" must be a non-empty string/)
  })

  it('appends to an existing file without a second header, and never lets t go back', async () => {
    const file = path.join(dir, 'append.ndjson.gz')
    const first = await createTapeWriter(file, { header })
    first.write({ t: 5000, k: 'spot', src: 'coinbase', px: 1 })
    await first.close()
    const second = await createTapeWriter(file, { header, lastT: 5000 })
    second.write({ t: 4000, k: 'spot', src: 'kraken', px: 2 })
    await second.close()
    const back = await readAll(file)
    assert.deepEqual(
      back.records.map((r) => r.t),
      [5000, 5000],
    )
  })

  it('ignores unknown kinds and unknown fields', async () => {
    const file = writeLines('unknown.ndjson', [
      JSON.stringify({ ...header, future: { x: 1 } }),
      JSON.stringify({ t: 1, k: 'orderflow', anything: [1, 2] }),
      JSON.stringify({ t: 2, k: 'spot', src: 'coinbase', px: 5, depth: 9 }),
    ])
    const back = await readAll(file)
    assert.deepEqual(back.header, header)
    assert.deepEqual(back.records, [{ t: 2, k: 'spot', src: 'coinbase', px: 5 }])
  })

  it('reads a gzip file whose last member was cut short up to its last complete line, and says so', async () => {
    const file = path.join(dir, 'cut.ndjson.gz')
    const writer = await createTapeWriter(file, { header, flushBytes: 1 })
    for (const r of records.slice(0, -1)) writer.write(r)
    await writer.flush()
    const complete = writer.size()
    writer.write(records.at(-1) as TapeRecord)
    await writer.close()
    // cut the last member (the index record) in its middle, as a kill during the write would
    truncateSync(file, Math.floor((complete + readFileSync(file).length) / 2))
    const notices: string[] = []
    const back = await readAll(file, notices)
    assert.deepEqual(back.records, records.slice(0, -1))
    assert.equal(notices.length, 1)
    assert.match(notices[0] as string, /truncated; read up to line 6, the last complete line/)
  })

  for (const gz of [false, true]) {
    it(`reads a ${gz ? 'gzip' : 'plain'} tape whose first line starts with a UTF-8 byte-order mark`, async () => {
      // an editor or a Windows tool that saved the file put one there; JSON.parse refuses it
      const file = writeLines(
        `bom.ndjson${gz ? '.gz' : ''}`,
        [`\ufeff${JSON.stringify(header)}`, ...records.map((r) => JSON.stringify(r))],
        gz,
      )
      const raw = gz ? gunzipSync(readFileSync(file)) : readFileSync(file)
      assert.deepEqual([...raw.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'the file starts with the BOM bytes')
      const back = await readAll(file)
      assert.deepEqual(back.header, header)
      assert.deepEqual(back.records, records)
    })
  }

  const bad: [string, string[], RegExp, number][] = [
    ['an empty file', [], /\.ndjson(?:\.gz)?: line 1: empty file/, 1],
    [
      'no header',
      [JSON.stringify(records[0])],
      /\.ndjson(?:\.gz)?: line 1: the first line is not a tape header/,
      1,
    ],
    ['a header that is not JSON', ['{tape:1'], /\.ndjson(?:\.gz)?: line 1: the header is not JSON/, 1],
    [
      'a wrong tape version',
      [JSON.stringify({ ...header, tape: 2 })],
      /\.ndjson(?:\.gz)?: line 1: unsupported tape version 2/,
      1,
    ],
    [
      'a header without series',
      [JSON.stringify({ ...header, series: [] })],
      /\.ndjson(?:\.gz)?: line 1: header field "series"/,
      1,
    ],
    [
      'a t that goes back',
      [JSON.stringify(header), JSON.stringify(records[1]), JSON.stringify({ ...records[2], t: 10 })],
      /\.ndjson(?:\.gz)?: line 3: "t" goes back in time \(10 after 1000\)/,
      3,
    ],
    [
      'a last line that is not JSON',
      [JSON.stringify(header), '{"t":1,"k":"spot",'],
      /\.ndjson(?:\.gz)?: line 2: not JSON$/,
      2,
    ],
    [
      'a line in the middle that is not JSON',
      [JSON.stringify(header), 'hello', JSON.stringify(records[0])],
      /\.ndjson(?:\.gz)?: line 2: not JSON$/,
      2,
    ],
    [
      'a record without t',
      [JSON.stringify(header), JSON.stringify({ k: 'spot', src: 'x', px: 1 })],
      /\.ndjson(?:\.gz)?: line 2: "t" must be an integer/,
      2,
    ],
    [
      'a spot record whose bid is not a positive number',
      [JSON.stringify(header), JSON.stringify({ t: 1, k: 'spot', src: 'x', bid: 0, ask: 1 })],
      /\.ndjson(?:\.gz)?: line 2: spot "bid" and "ask" must be positive numbers$/,
      2,
    ],
    [
      'a spot record without a price',
      [JSON.stringify(header), JSON.stringify({ t: 1, k: 'spot', src: 'x' })],
      /\.ndjson(?:\.gz)?: line 2: spot record needs/,
      2,
    ],
  ]
  for (const [what, lines, message, line] of bad) {
    it(`refuses ${what}, naming the line`, async () => {
      const err = await failure(writeLines(`bad-${line}-${what.replaceAll(' ', '-')}.ndjson`, lines))
      assert.match(err.message, message)
      assert.equal(err.line, line)
    })
  }

  it('refuses a plain file cut inside its last line, and a gzip file that is not gzip', async () => {
    const cut = path.join(dir, 'cut.ndjson')
    writeFileSync(cut, `${JSON.stringify(header)}\n${JSON.stringify(records[1]).slice(0, 20)}`)
    assert.match(
      (await failure(cut)).message,
      /\.ndjson(?:\.gz)?: line 2: the file ends inside this line \(truncated/,
    )
    const notGzip = writeLines('plain-named.ndjson.gz', [JSON.stringify(header)])
    assert.match(
      (await failure(notGzip)).message,
      /\.ndjson\.gz: line 1: the name ends in \.gz but the file is not gzip data/,
    )
  })

  it('reads every line before bytes after the last gzip member, then stops naming the first line not read', async () => {
    const lines = [JSON.stringify(header), ...Array.from({ length: 50 }, () => JSON.stringify(records[1]))]
    const file = path.join(dir, 'trailing.ndjson.gz')
    writeFileSync(file, Buffer.concat([gzipSync(`${lines.join('\n')}\n`), Buffer.from('GARBAGE\n')]))
    const { records: read, err } = await readUntilFault(file)
    assert.equal(read.length, 50)
    assert.equal(err.line, 52)
    assert.match(
      err.message,
      /trailing\.ndjson\.gz: line 52: not valid gzip data \(.+\).*every line before it was read/,
    )
    assert.doesNotMatch(err.message, /\n/)
  })

  it('names the gzip damage behind a line that decompressed to wrong bytes before its member failed its check', async () => {
    // stored (level 0) deflate keeps the text as it is: a changed byte reaches the parser, and only
    // the member's CRC at its end, megabytes on, says the file is damaged
    const spot = JSON.stringify(records[1])
    const lines = [JSON.stringify(header), ...Array.from({ length: 20_000 }, () => spot)]
    const whole = gzipSync(`${lines.join('\n')}\n`, { level: 0 })
    const damaged = Buffer.from(whole)
    const at = damaged.indexOf(`\n${spot}`, damaged.indexOf(spot) + 1) + 1 // line 3's "{"
    damaged[at] = 0x21
    const file = path.join(dir, 'stored-damaged.ndjson.gz')
    writeFileSync(file, damaged)
    const { records: read, err } = await readUntilFault(file)
    assert.equal(read.length, 1, 'line 2 is read, line 3 is the fault')
    assert.equal(err.line, 3)
    assert.match(
      err.message,
      /stored-damaged\.ndjson\.gz: line 3: not JSON; the file's gzip data is damaged too \(incorrect data check\).*every line before it was read/,
    )
    // the same bad line in a whole gzip file is only a bad line
    const intact = path.join(dir, 'stored-intact.ndjson.gz')
    const badThird = lines.map((line, i) => (i === 2 ? `!${line.slice(1)}` : line))
    writeFileSync(intact, gzipSync(`${badThird.join('\n')}\n`, { level: 0 }))
    assert.match((await failure(intact)).message, /stored-intact\.ndjson\.gz: line 3: not JSON$/)
  })

  it('reads every line a damaged last gzip member decompresses to before its damage, then names the damage', async () => {
    const file = path.join(dir, 'damaged.ndjson.gz')
    // whole members first (one record each, as the recorder's flushes), then one big member
    const writer = await createTapeWriter(file, { header, flushBytes: 1 })
    for (const r of records.slice(0, 5)) writer.write(r)
    await writer.flush()
    const goodMembers = writer.size()
    await writer.close()
    const many = Array.from({ length: 2000 }, (_, i) => ({
      t: 4000 + i,
      k: 'spot',
      src: 'kraken',
      px: 100 + i,
    }))
    const last = gzipSync(many.map((r) => `${JSON.stringify(r)}\n`).join(''))
    // a bit flipped two thirds into the last member: what decompresses before it is good
    const at = Math.floor(last.length * 0.66)
    const damaged = Buffer.from(last)
    damaged[at] = (damaged[at] as number) ^ 0x10
    writeFileSync(file, Buffer.concat([readFileSync(file).subarray(0, goodMembers), damaged]))
    const before = gunzipSync(last.subarray(0, at), { finishFlush: zlibConstants.Z_SYNC_FLUSH })
    const wholeBefore = before.toString('utf8').split('\n').length - 1

    const { records: read, err } = await readUntilFault(file)
    assert.ok(
      read.length >= 5 + wholeBefore,
      `${read.length} records read; ${5 + wholeBefore} were whole before the damage`,
    )
    assert.deepEqual(read.slice(0, 5 + wholeBefore), [...records.slice(0, 5), ...many.slice(0, wholeBefore)])
    assert.equal(err.line, read.length + 2, 'the line after the last one read (the header is line 1)')
    assert.match(err.message, /damaged\.ndjson\.gz: line \d+: not valid gzip data \(.+\)/)
    assert.doesNotMatch(err.message, /\n/)
  })

  it('refuses a line longer than any record, naming it, instead of holding it all in memory', async () => {
    // a file that is not NDJSON (a JSON array on one line, a binary file) must not be read as one line
    const file = path.join(dir, 'huge.ndjson')
    const blob = 'a'.repeat(MAX_LINE_CHARS)
    writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify({ t: 1, k: 'blob', x: blob })}\n`)
    const err = await failure(file)
    assert.equal(err.line, 2)
    assert.match(err.message, /huge\.ndjson: line 2: longer than 64 MiB without a newline/)
  })

  it('refuses a pipe or a device (read twice, headers first) with one line, before reading it', async () => {
    // /dev/stdin of a replay fed by a pipe: read once for the header, the second read began mid-tape
    // and failed as "the header is not JSON"
    for (const target of ['/dev/null', '-'])
      await assert.rejects(openTapeSet(target), (err: unknown) => {
        assert.ok(err instanceof TapeError, String(err))
        assert.match(
          err.message,
          /not a tape file or a directory of them: a pipe, a device or stdin .*save the tape to a file/,
        )
        return true
      })
  })

  it('names gzip data without the .gz name, and a .gz name on plain text, as such', async () => {
    const zipped = path.join(dir, 'zipped.ndjson')
    writeFileSync(zipped, gzipSync(`${JSON.stringify(header)}\n`))
    assert.match(
      (await failure(zipped)).message,
      /zipped\.ndjson: line 1: gzip data, but the name does not end in \.gz/,
    )
    const plain = writeLines('plain.ndjson.gz', [JSON.stringify(header)])
    assert.match(
      (await failure(plain)).message,
      /plain\.ndjson\.gz: line 1: the name ends in \.gz but the file is not gzip data/,
    )
  })

  it('names a missing file', async () => {
    const err = await failure(path.join(dir, 'nope.ndjson'))
    assert.match(err.message, /no such file/)
  })

  it('reads a directory of minute-grained day tapes with their grain, and refuses one that mixes grains', async () => {
    const days = path.join(dir, 'grains')
    mkdirSync(days)
    const minute: TapeHeader = { ...header, grain: '1m' }
    writeLines('grains/tape-2026-11-20.ndjson', [JSON.stringify(minute)])
    writeLines('grains/tape-2026-11-21.ndjson', [JSON.stringify({ ...minute, from: '2026-11-21T00:00:00Z' })])
    const set = await openTapeSet(days)
    assert.equal(set.header.grain, '1m')
    writeLines('grains/tape-2026-11-22.ndjson', [JSON.stringify({ ...header, from: '2026-11-22T00:00:00Z' })])
    await assert.rejects(openTapeSet(days), {
      message: `${path.join(days, 'tape-2026-11-22.ndjson')}: line 1: grain "full" differs from "1m" of the first tape`,
    })
  })
})
