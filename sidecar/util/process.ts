import { readFileSync } from 'node:fs';
import * as os from 'node:os';

/**
 * True when a process with this pid exists (EPERM: it exists but belongs to someone else). Only pids > 0
 * can be alive: `kill(0)` and negative pids signal process groups, so they would always look alive.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When the system booted (epoch ms), from /proc/stat; undefined where that is not known. */
let bootMs: number | undefined | null = null;

/**
 * When process `pid` started (epoch ms, to about a second: the boot time is in whole seconds), from
 * /proc/<pid>/stat; undefined where that is not known (not Linux, gone, not readable).
 */
export function processStartMs(pid: number): number | undefined {
  try {
    if (bootMs === null) {
      const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
      bootMs = btime ? Number(btime[1]) * 1000 : undefined;
    }
    if (bootMs === undefined) return undefined;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, counted after the command name in parentheses (which may hold spaces and parentheses).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? bootMs + (ticks * 1000) / CLOCK_TICKS : undefined;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ: the unit of a process's start time in /proc (100 on every common architecture). */
const CLOCK_TICKS = 100;

/**
 * True when the owner named in a lock (or pid-named) file last written at `writtenMs` still holds it: the
 * pid is alive and its process started before the file was written. A process that started later only
 * got the dead owner's pid again (pids are reused), and must not lock every other process out.
 */
export function ownerAlive(pid: number, writtenMs: number): boolean {
  if (!pidAlive(pid)) return false;
  const started = processStartMs(pid);
  return started === undefined || started <= writtenMs + 1500; // the boot time is in whole seconds
}

/** The pid in a lock or pid file's text, or undefined when it holds none (empty, garbage, 0, negative). */
export function lockHolder(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return undefined;
  const pid = Number(t);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Lowers the calling thread's priority to `niceness` (on Linux a nice value is per thread; the threads,
 * child processes and workers it starts afterwards inherit it). Only ever lowers it; a system that
 * refuses leaves it as it was.
 */
export function lowerPriority(niceness: number): void {
  try {
    if (os.getPriority() < niceness) os.setPriority(niceness);
  } catch {
    // Not permitted here (a sandbox): the thread keeps its priority.
  }
}
