// Plays a tape's records into the replay's venue and spot sources in time order (decisions §12):
// a record takes effect at its `t` and not before. The one look-ahead the rules allow is the order
// book: a book request made at `t` is answered by the first book of that ticker in [t, t + 5 s], and
// every record up to that one, in the tape's order, is then applied, as the clock has moved on to it.
import type { BookRecord, TapeRecord } from '../../tape/tape-format.ts'

/** How far ahead a book request may be answered from (decisions §12). */
export const BOOK_WINDOW_MS = 5_000
/** Applied books kept per ticker, for requests made a little after they arrived. */
const RECENT_BOOK_MS = 60_000

/** Takes one record into the replay's state; true when the engine should look again (a change it acts on). */
export type RecordSink = (record: TapeRecord) => boolean

export type TapePlayer = {
  /**
   * Applies records in order while `t ≤ limit`, stopping after the first one that wakes the engine
   * (and the others of that same instant). Returns the instant reached: that record's `t`, or `limit`.
   */
  playUntil(limit: number): Promise<number>
  /**
   * The first book of `ticker` (and, when the venue keeps a book per outcome token, one `isWanted`
   * accepts) with `t` in [from, to], applying every record up to it; null when none.
   */
  bookBetween(
    ticker: string,
    from: number,
    to: number,
    isWanted?: (book: BookRecord) => boolean,
  ): Promise<BookRecord | null>
  /** `t` of the next record not yet applied, null at the end of the tape. */
  nextTime(): Promise<number | null>
  /** `t` of the last record applied (−∞ before the first). */
  lastApplied(): number
}

export function createTapePlayer(batches: AsyncIterator<TapeRecord[]>, sink: RecordSink): TapePlayer {
  // records read but not applied yet: the rest of the current batch, and more while a book window reaches
  let ahead: TapeRecord[] = []
  let head = 0
  let ended = false
  let applied = Number.NEGATIVE_INFINITY
  // a record applied during a book look-ahead that the engine has to act on: played out next
  let pendingWake: number | null = null
  const recentBooks = new Map<string, BookRecord[]>()

  // a read that failed (a bad line, damaged gzip): an iterator that threw is done, so without this a
  // fault met during a book look-ahead would read as the tape's end and the replay would finish as if
  // complete. Every later read throws it again.
  let failure: unknown = null
  const readOne = async (): Promise<boolean> => {
    if (failure !== null) throw failure
    if (ended) return false
    let next: IteratorResult<TapeRecord[]>
    try {
      next = await batches.next()
    } catch (err) {
      failure = err
      throw err
    }
    if (next.done) {
      ended = true
      return false
    }
    ahead = head >= ahead.length ? next.value : ahead.slice(head).concat(next.value)
    head = 0
    return true
  }
  const peek = async (): Promise<TapeRecord | undefined> => {
    if (head >= ahead.length && !(await readOne())) return undefined
    return ahead[head]
  }
  const rememberBook = (book: BookRecord): void => {
    let list = recentBooks.get(book.ticker)
    if (!list) {
      list = []
      recentBooks.set(book.ticker, list)
    }
    list.push(book)
    while (list.length > 0 && (list[0] as BookRecord).t < book.t - RECENT_BOOK_MS) list.shift()
    if (recentBooks.size > 64)
      for (const [ticker, books] of recentBooks)
        if ((books.at(-1) as BookRecord).t < book.t - RECENT_BOOK_MS) recentBooks.delete(ticker)
  }
  /** Applies the next record; true when it wakes the engine. */
  const applyNext = (): boolean => {
    const record = ahead[head++] as TapeRecord
    applied = record.t
    if (record.k === 'book') rememberBook(record)
    return sink(record)
  }

  return {
    async playUntil(limit) {
      if (pendingWake !== null) {
        const at = pendingWake
        pendingWake = null
        return at
      }
      let wokeAt: number | null = null
      for (let r = await peek(); r !== undefined && r.t <= limit; r = await peek()) {
        if (wokeAt !== null && r.t > wokeAt) break
        if (applyNext() && wokeAt === null) wokeAt = r.t
      }
      return wokeAt ?? limit
    },
    async bookBetween(ticker, from, to, isWanted) {
      const ofToken = (book: BookRecord): boolean => isWanted === undefined || isWanted(book)
      for (const book of recentBooks.get(ticker) ?? [])
        if (book.t >= from && book.t <= to && book.t <= applied && ofToken(book)) return book
      // look ahead without applying anything until the book is found (offsets from head: reading
      // another batch re-bases the buffer)
      let offset = 0
      let found: BookRecord | null = null
      for (;;) {
        // a bad tape met while looking ahead: no book for this request (the engine skips the minute
        // without logging a failed step); the replay loop's next read throws the fault and stops there
        if (head + offset >= ahead.length && !(await readOne().catch(() => false))) break
        const r = ahead[head + offset] as TapeRecord
        if (r.t > to) break
        if (r.k === 'book' && r.ticker === ticker && r.t >= from && ofToken(r)) {
          found = r
          break
        }
        offset++
      }
      if (!found) return null
      // the request took until the book came: everything recorded before it has happened, and nothing
      // after it — not even a record of the same millisecond, which the live engine handled after
      // this book (the tape keeps the order it handled them in), so the reading that goes on from
      // the book sees what the live one saw
      for (let r = await peek(); r !== undefined; r = await peek()) {
        if (applyNext() && pendingWake === null) pendingWake = r.t
        if (r === found) break
      }
      return found
    },
    async nextTime() {
      return (await peek())?.t ?? null
    },
    lastApplied: () => applied,
  }
}
