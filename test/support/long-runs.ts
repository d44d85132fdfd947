// The switches of the test runs (`npm run chaos`, `npm run fuzz`, `FAST_PATH=off`), read in one place.
export const CHAOS_LONG = process.env.CHAOS_LONG === '1'

/** Cases of the hostile-input property run: a short run in `npm test`, 10,000+ under `npm run fuzz`. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? '300')

/** A seed to replay a failing run (printed by every run); random when unset. */
export const FUZZ_SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)

/** Random requests of the differential property test (test/http-differential.test.ts). */
export const DIFF_RUNS = Number(process.env.DIFF_RUNS ?? '300')

/**
 * FAST_PATH for every test world that does not choose: `npm run test:http` runs the HTTP suite once
 * with the default (on) and once with `FAST_PATH=off`, so every HTTP test meets both request paths.
 */
export const TEST_FAST_PATH = process.env.FAST_PATH
