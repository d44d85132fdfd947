// The switches of the long test variants (`npm run chaos`, `npm run fuzz`), read in one place.
export const CHAOS_LONG = process.env.CHAOS_LONG === '1'

/** Cases of the hostile-input property run: a short run in `npm test`, 10,000+ under `npm run fuzz`. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? '300')

/** A seed to replay a failing run (printed by every run); random when unset. */
export const FUZZ_SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)
