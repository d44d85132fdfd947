// The outcome of validating one raw venue payload: the typed value, or the name of the field that
// was wrong (decisions §8: a malformed payload is logged with the field and skipped).
export type Parsed<T> = { ok: true; value: T } | { ok: false; field: string }

export const parsed = <T>(value: T): Parsed<T> => ({ ok: true, value })
export const malformed = <T>(field: string): Parsed<T> => ({ ok: false, field })
