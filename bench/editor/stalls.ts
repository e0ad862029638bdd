/**
 * Splits the extension host's long event-loop stalls into its own work and the machine's load: a 10 ms
 * timer notes every gap longer than `minMs` between two of its ticks, with what the kernel says the main
 * thread did meanwhile (`/proc/<pid>/task/<pid>/schedstat`: nanoseconds on a CPU, nanoseconds runnable but
 * waiting for one). A stall that is mostly waiting is the other processes holding both cores; one that is
 * mostly on-CPU is work of the extension host (Mnemo, VS Code's own RPC, GC) to remove. Beside it, what
 * the whole machine did (`/proc/stat`, summed over its CPUs): time busy with any process, and time the
 * hypervisor ran something else on the VM's CPUs (steal); a stall the thread spent waiting while the
 * CPUs were not busy either is the VM's.
 */
import * as fs from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';

export interface Stall {
  /** Milliseconds since the monitor started. */
  at: number;
  ms: number;
  /** Of those, on a CPU (the thread's own work). */
  cpu_ms: number;
  /** Of those, runnable but waiting for a CPU (load from other processes, or the VM's CPU taken away). */
  wait_ms: number;
  /** CPU time of the whole machine meanwhile, summed over its CPUs: busy with any process. */
  machine_busy_ms: number;
  /** ...and taken by the hypervisor for other guests (steal). */
  machine_steal_ms: number;
  /** The machine's CPUs times the stall: what busy and steal are out of. */
  machine_cpu_ms: number;
}

export interface StallSummary {
  /** Gaps longer than the threshold. */
  count: number;
  /** Of them, gaps where the thread was on a CPU for more than half the time. */
  cpu_bound: number;
  /** The longest on-CPU time of any stall (what the extension host itself blocked for at most). */
  max_cpu_ms: number;
  worst: Stall[];
  /** Garbage collections in the window: count, total and longest pause (ms), major (mark-compact) apart. */
  gc: { count: number; total_ms: number; max_ms: number; major: number; major_max_ms: number };
}

const SCHEDSTAT = `/proc/${process.pid}/task/${process.pid}/schedstat`;

function schedstat(): [number, number] | undefined {
  try {
    const [cpu, wait] = fs.readFileSync(SCHEDSTAT, 'utf8').split(' ').map(Number);
    return [cpu / 1e6, wait / 1e6];
  } catch {
    return undefined; // not Linux: stalls are still timed, without the split
  }
}

const CPUS = (() => {
  try {
    return (
      fs
        .readFileSync('/proc/stat', 'utf8')
        .split('\n')
        .filter((l) => /^cpu\d/.test(l)).length || 1
    );
  } catch {
    return 1;
  }
})();

/** Milliseconds of the whole machine (all CPUs summed) busy and stolen so far, from /proc/stat's ticks. */
function machineStat(): [number, number] | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal ...; the kernel's ticks are 10 ms.
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return [(user! + nice! + system! + irq! + softirq!) * 10, (steal ?? 0) * 10];
  } catch {
    return undefined;
  }
}

export class StallMonitor {
  private readonly stalls: Stall[] = [];
  private timer: NodeJS.Timeout | undefined;
  private t0 = 0;
  private readonly gcs: { major: boolean; ms: number }[] = [];
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      this.gcs.push({ major: kind === constants.NODE_PERFORMANCE_GC_MAJOR, ms: e.duration });
    }
  });

  constructor(private readonly minMs = 50) {}

  start(): void {
    this.t0 = performance.now();
    this.observer.observe({ entryTypes: ['gc'] });
    let last = this.t0;
    let lastStat = schedstat();
    let lastMachine = machineStat();
    this.timer = setInterval(() => {
      const now = performance.now();
      const stat = schedstat();
      const machine = machineStat();
      // The timer itself is due every 10 ms; what is beyond that is the stall.
      if (now - last > this.minMs + 10) {
        const ms = Math.round(now - last - 10);
        this.stalls.push({
          at: Math.round(last - this.t0),
          ms,
          cpu_ms: stat && lastStat ? Math.round(stat[0] - lastStat[0]) : NaN,
          wait_ms: stat && lastStat ? Math.round(stat[1] - lastStat[1]) : NaN,
          machine_busy_ms: machine && lastMachine ? machine[0] - lastMachine[0] : NaN,
          machine_steal_ms: machine && lastMachine ? machine[1] - lastMachine[1] : NaN,
          machine_cpu_ms: Math.round((now - last) * CPUS),
        });
      }
      last = now;
      lastStat = stat;
      lastMachine = machine;
    }, 10);
  }

  stop(): StallSummary {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.observer.disconnect();
    const round = (n: number) => Math.round(n * 10) / 10;
    const major = this.gcs.filter((g) => g.major);
    const worst = [...this.stalls].sort((a, b) => b.ms - a.ms).slice(0, 8);
    return {
      count: this.stalls.length,
      cpu_bound: this.stalls.filter((s) => s.cpu_ms > s.ms / 2).length,
      max_cpu_ms: Math.max(0, ...this.stalls.map((s) => s.cpu_ms).filter((n) => !Number.isNaN(n))),
      worst,
      gc: {
        count: this.gcs.length,
        total_ms: round(this.gcs.reduce((n, g) => n + g.ms, 0)),
        max_ms: round(Math.max(0, ...this.gcs.map((g) => g.ms))),
        major: major.length,
        major_max_ms: round(Math.max(0, ...major.map((g) => g.ms))),
      },
    };
  }
}
