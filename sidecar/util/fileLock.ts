/**
 * A lock file shared by every Mnemo process on one data folder (the sidecar, CLIs, MCP servers): created
 * with O_EXCL, holding the owner's pid. A lock whose owner is dead (or whose pid now belongs to a process
 * that started after the lock was written: pids are reused), or that holds no valid pid and is
 * older than {@link EMPTY_GRACE_MS} (a process killed between create and write, or a full disk), is stale
 * and taken over: a crashed process never locks the others out.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { ownerAlive } from './process';

/** How long a lock file without a valid pid may be someone's lock that is being written. */
const EMPTY_GRACE_MS = 2_000;

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

/** The pid in a lock file, or undefined when it holds none (empty, torn, not a number, <= 0). */
function ownerOf(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True when the lock at `file` can be taken over. */
function isStale(file: string): boolean {
  const pid = ownerOf(file);
  try {
    const written = statSync(file).mtimeMs;
    if (pid !== undefined) return pid !== process.pid && !ownerAlive(pid, written);
    return Date.now() - written > EMPTY_GRACE_MS;
  } catch {
    return true; // gone already
  }
}

/** One attempt: true when this process now holds the lock. */
export function tryLock(file: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (!isStale(file)) return false;
      try {
        unlinkSync(file);
      } catch {
        // someone else removed it first; try again
      }
      continue;
    }
    try {
      const text = Buffer.from(String(process.pid));
      let done = 0;
      while (done < text.length) done += writeSync(fd, text, done);
    } catch (e) {
      closeSync(fd);
      unlinkSync(file);
      throw e;
    }
    closeSync(fd);
    return true;
  }
  return false;
}

export function unlock(file: string): void {
  if (ownerOf(file) !== process.pid) return;
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/** Waits (polling) for the lock; throws {@link LockTimeoutError} after `timeoutMs`. */
export async function lock(file: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let wait = 2;
  while (!tryLock(file)) {
    if (Date.now() >= deadline) throw new LockTimeoutError(`${file} is held by another Mnemo process.`);
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, 50);
  }
}

/** This process's callers of {@link withLock}, per lock file: each waits for the one before it. */
const queues = new Map<string, Promise<void>>();

/**
 * Runs `fn` holding the lock at `file`: one holder per data folder across processes, and within this
 * process the callers queue (the lock file is not reentrant, so a second caller of this process waits
 * its turn here instead of polling a lock its own process holds).
 */
export async function withLock<T>(file: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const prev = queues.get(file) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  const tail = prev.then(() => mine);
  queues.set(file, tail);
  try {
    await prev;
    await lock(file, timeoutMs);
    try {
      return await fn();
    } finally {
      unlock(file);
    }
  } finally {
    release();
    if (queues.get(file) === tail) queues.delete(file);
  }
}
