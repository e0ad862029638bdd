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
