// Turns off V8's allocation-site pretenuring in the processes that answer HTTP (serve, api), before
// anything else is loaded. Measured on this service under the benchmark's load (BENCHMARKS.md,
// "Garbage collection"): V8 starts allocating Node's per-request objects (IncomingMessage,
// ServerResponse, the write requests) straight into the old generation, because at some point many
// of them survived a scavenge. A dead old object still counts as a root for every young object it
// was given afterwards (its headers, callbacks, buffers), so each answered request then kept about
// 2 KB alive through the next scavenge and into the old generation: ~44 % of the new space
// survived, scavenges took 7 ms, majors came every second, and the feedback kept the sites
// pretenured for good. A bare node:http server never gets there. Without pretenuring, per-request
// garbage dies young as it should (GC time per answer 3.3 → 0.5 µs, RSS under load 395 → 180 MB).
// The flag is read by the collector at each scavenge, so setting it at start takes effect.
// Imported first by cli/main.ts, ahead of every other module.
import { setFlagsFromString } from 'node:v8'

/** The commands that run an HTTP server (decisions §8). */
const SERVING_COMMANDS = new Set(['serve', 'api'])

if (SERVING_COMMANDS.has(process.argv[2] ?? '')) setFlagsFromString('--no-allocation-site-pretenuring')
