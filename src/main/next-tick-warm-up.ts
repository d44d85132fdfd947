// Runs process.nextTick hot before anything else is loaded, so V8 optimises it while the objects it
// makes (Node's tick objects, one per nextTick) all have one shape. Every HTTP request goes through
// several nextTicks inside Node. Measured on this service (BENCHMARKS.md, "CPU per request"): when
// nextTick is first optimised during start-up, amid module loading, the inline caches that store
// the tick object's fields can end up megamorphic, and the optimised nextTick then defines four of
// its five fields through a runtime call, about 3 µs more CPU per request under a profiler than
// in a bare node:http server. Run first, nextTick is optimised with one shape and stays that way.
// The cost is a few milliseconds at start; the ticks do nothing.
// Imported first by cli/main.ts, ahead of every other module.

/** Enough calls for V8 to optimise nextTick (it does so after a few thousand invocations). */
const WARM_UP_CALLS = 50_000

const nothing = (): void => undefined
for (let i = 0; i < WARM_UP_CALLS; i++) process.nextTick(nothing)
