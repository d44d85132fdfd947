// How much of the machine's CPU went to processes other than the benchmark and its services while a
// phase ran (Linux /proc). Figures from a machine busy with other work are not comparable, ratios
// included, and the report says so.
import { readFileSync } from 'node:fs'

/** Above this share of all CPU time used by other processes, a stretch of the run counts as busy. */
export const BUSY_PCT = 10

type Ticks = { total: number; busy: number; own: number }

export type LoadMeter = {
  /** share of all CPU time spent by other processes since the meter started, in %; null off Linux */
  otherCpuPct(): number | null
}

/** `pids()` lists the processes counted as ours besides this one (the services running). */
export function startLoadMeter(pids: () => number[]): LoadMeter {
  const start = read(pids())
  return {
    otherCpuPct() {
      const end = read(pids())
      if (!start || !end || end.total <= start.total) return null
      const other = end.busy - start.busy - (end.own - start.own)
      return Math.max(0, (other / (end.total - start.total)) * 100)
    },
  }
}

function read(pids: number[]): Ticks | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal. Only user, nice and system are charged to
    // processes: interrupt time (much of it our own loopback traffic) is in nobody's utime/stime.
    const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0)
    const busy = (cpu[0] ?? 0) + (cpu[1] ?? 0) + (cpu[2] ?? 0)
    let own = processTicks('self')
    for (const pid of pids) own += processTicks(pid)
    return { total, busy, own }
  } catch {
    return null
  }
}

/** Milliseconds in a clock tick of /proc (USER_HZ, 100 on Linux whatever the kernel's HZ). */
export const TICK_MS = 10

/** utime + stime of a process, all its threads, in clock ticks (the unit of /proc/stat); 0 once gone. */
export function processTicks(pid: number | 'self'): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the parenthesised command name, which may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}
