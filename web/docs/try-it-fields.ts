// What try-it pre-fills. The OpenAPI document gives every parameter an example recorded on another
// deployment; Swagger UI puts each into its try-it field and sends it. Those that would change the
// answer (a validator: a 304 or a 200 by chance; a resume point: a fresh snapshot or a replay) or that
// name that deployment's data (a ticker: a 404 here; a date range: an empty page) are left for the user
// to fill: the example moves into the parameter's description, where it stays in sight.

/** Parameter names whose recorded example try-it shows but does not send. */
const SHOWN_NOT_SENT: Record<string, string> = {
  ticker:
    'recorded on another deployment: take a ticker from this one, from the active contest or the settled list',
  since: 'recorded on another deployment: enter a range of your own, or none for the newest contests',
  before: 'recorded on another deployment: enter a range of your own, or none for the newest contests',
  'if-none-match': 'sent only if you enter one: take it from the ETag of an earlier answer',
  'last-event-id': 'sent only if you enter one: the id of the last event your stream received',
  last_event_id: 'sent only if you enter one: the id of the last event your stream received',
}

type Parameter = { name: string; description?: string; examples?: Record<string, { value: unknown }> }
type Document = { paths?: Record<string, Record<string, { parameters?: Parameter[] }>> }

/** `doc` with those examples moved from the try-it fields into the descriptions. */
export function tryItFields<T extends Document>(doc: T): T {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const p of operation.parameters ?? []) {
        const why = SHOWN_NOT_SENT[p.name]
        const example = p.examples ? Object.values(p.examples)[0]?.value : undefined
        if (!why || example === undefined) continue
        delete p.examples
        p.description = `${p.description ?? ''}\n\nExample: \`${String(example)}\` (${why}).`.trim()
      }
    }
  }
  return doc
}
