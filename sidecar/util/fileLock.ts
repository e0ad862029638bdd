/**
 * A lock shared by every Mnemo process on one data folder (the sidecar, CLIs, MCP servers): a symbolic link
 * whose target is the owner's pid, created atomically (it fails when the name is taken). A link keeps its
 * short target in its own inode, so taking a lock needs no free data block: on a full disk, reads that take
 * a lock (starting Chroma, opening the index) still work (a lock file with the pid written into it could
 * not be written, and even `mnemo list` failed). A lock whose owner is dead (or whose pid now belongs to a
 * process that started after the lock was taken: pids are reused), or that holds no valid pid and is older
 * than {@link EMPTY_GRACE_MS} (a plain lock file an older version left half-written), is stale and taken
 * over: a crashed process never locks the others out.
 */
import { lstatSync, readFileSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import { lockHolder, ownerAlive } from './process';

/** How long a lock file without a valid pid may be someone's lock that is being written. */
const EMPTY_GRACE_MS = 2_000;

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

/** A lock as found: its owner's pid (undefined when it holds none) and when it was taken; undefined when there is none. */
export function readLock(file: string): { pid: number | undefined; takenMs: number } | undefined {
  try {
    const st = lstatSync(file);
    const text = st.isSymbolicLink() ? readlinkSync(file) : readFileSync(file, 'utf8');
    return { pid: lockHolder(text), takenMs: st.mtimeMs };
  } catch {
    return undefined;
  }
}

/** Creates the lock naming this process; false when it exists. Other failures (a read-only folder) throw. */
export function createLock(file: string): boolean {
  try {
    symlinkSync(String(process.pid), file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** True when the lock at `file` can be taken over (its owner is gone; or, for `mine`, it is this process's own). */
export function lockIsStale(file: string, mine: 'wait' | 'stale' = 'wait'): boolean {
  const held = readLock(file);
  if (!held) return true; // gone already
  if (held.pid === undefined) return Date.now() - held.takenMs > EMPTY_GRACE_MS;
  if (held.pid === process.pid) return mine === 'stale';
  return !ownerAlive(held.pid, held.takenMs);
}

/** One attempt: true when this process now holds the lock. */
export function tryLock(file: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createLock(file)) return true;
    if (!lockIsStale(file)) return false;
    try {
      unlinkSync(file);
    } catch {
      // someone else removed it first; try again
    }
  }
  return false;
}

export function unlock(file: string): void {
  if (readLock(file)?.pid !== process.pid) return;
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
