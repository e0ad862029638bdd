/**
 * The durable capture queue. What the extension sends is appended to disk and fsynced before the request
 * is acknowledged; a background worker processes entries in order and appends a `done` marker. After a
 * crash, entries without a marker are replayed. Replay never doubles a memory because memory ids are
 * derived from project + normalized text and writes are upserts.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { appendFully } from './util/append';
import { replaceFile } from './shared/atomicFile';
import { ownerAlive } from './util/process';

export interface QueueEntry<T> {
  id: string;
  /** UTC ISO time it was enqueued. */
  at: string;
  payload: T;
  /** How many times processing failed so far. */
  attempts: number;
}

type Line<T> =
  | { op: 'add'; id: string; at: string; payload: T }
  | { op: 'done'; id: string }
  | { op: 'fail'; id: string; error: string };

/** Compact the file when it grows past this and at least half of it is finished work. */
const COMPACT_BYTES = 1 << 20;

export class DurableQueue<T> {
  private fd: number | undefined;
  private pendingEntries = new Map<string, QueueEntry<T>>();
  private bytes = 0;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.load();
  }

  private load(): void {
    if (!existsSync(this.file)) return;
    const text = readFileSync(this.file, 'utf8');
    this.bytes = Buffer.byteLength(text);
    for (const raw of text.split('\n')) {
      if (!raw.trim()) continue;
      let line: Line<T>;
      try {
        line = JSON.parse(raw) as Line<T>;
      } catch {
        continue; // torn last line after a crash: that request was never acknowledged
      }
      if (line.op === 'add')
        this.pendingEntries.set(line.id, { id: line.id, at: line.at, payload: line.payload, attempts: 0 });
      else if (line.op === 'done') this.pendingEntries.delete(line.id);
      else if (line.op === 'fail') {
        const e = this.pendingEntries.get(line.id);
        if (e) e.attempts++;
      }
    }
    this.compact();
  }

  private open(): number {
    if (this.fd === undefined) this.fd = openSync(this.file, 'a', 0o600);
    return this.fd;
  }

  /** Appends one whole line (or nothing: a failed write is cut back) and throws one sentence on failure. */
  private write(line: Line<T>, sync: boolean): void {
    this.bytes += appendFully(this.open(), JSON.stringify(line) + '\n', 'the capture queue', sync);
  }

  /**
   * Appends durably; when this returns the entry survives a crash. On a full disk it throws a
   * StoreUnavailableError ("The disk is full, …") and the entry is neither in the file nor pending, so
   * the capture is refused, never acknowledged and lost.
   */
  enqueue(payload: T, at = new Date().toISOString()): QueueEntry<T> {
    const entry: QueueEntry<T> = { id: randomUUID(), at, payload, attempts: 0 };
    this.write({ op: 'add', id: entry.id, at, payload }, true);
    this.pendingEntries.set(entry.id, entry);
    return entry;
  }

  /** Re-appends an entry adopted from a dead process's queue, keeping its id (idempotent). */
  enqueueExisting(entry: QueueEntry<T>): void {
    if (this.pendingEntries.has(entry.id)) return;
    this.write({ op: 'add', id: entry.id, at: entry.at, payload: entry.payload }, true);
    this.pendingEntries.set(entry.id, { ...entry, attempts: 0 });
  }

  /**
   * Marks an entry processed. Never throws: if the marker cannot be written (a full disk) the entry still
   * leaves this process's pending list and is replayed after a restart, which is harmless (writes are
   * upserts by id). Returns false when the marker was not written.
   */
  markDone(id: string): boolean {
    if (!this.pendingEntries.has(id)) return true;
    this.pendingEntries.delete(id);
    try {
      this.write({ op: 'done', id }, true);
    } catch {
      return false;
    }
    if (this.bytes > COMPACT_BYTES && this.pendingEntries.size < 100) this.compact();
    return true;
  }

  /** Counts a failed attempt. Never throws: the count is kept in memory when the disk is full. */
  markFailed(id: string, error: string): void {
    const e = this.pendingEntries.get(id);
    if (!e) return;
    e.attempts++;
    try {
      this.write({ op: 'fail', id, error }, false);
    } catch {
      // a full disk: the attempt still counts in this process
    }
  }

  /**
   * Drops the pending entries `drop` picks and rewrites the file with the rest only ({@link compact}), so
   * neither they nor what was already processed stays on disk (a wiped project's captures). Returns how
   * many pending entries were dropped.
   */
  discard(drop: (payload: T) => boolean): number {
    let n = 0;
    for (const [id, e] of this.pendingEntries)
      if (drop(e.payload)) {
        this.pendingEntries.delete(id);
        n++;
      }
    this.compact();
    return n;
  }

  /** Whether an entry is still pending (not done, not discarded). */
  has(id: string): boolean {
    return this.pendingEntries.has(id);
  }

  /** Entries not yet done, oldest first. */
  pending(): QueueEntry<T>[] {
    return [...this.pendingEntries.values()];
  }

  get size(): number {
    return this.pendingEntries.size;
  }

  /**
   * Rewrites the file with only the pending entries (atomic: temp file, fsync, rename). Best effort: when
   * the temp file cannot be written (a full disk) the current file stays as it is, and is still correct.
   */
  compact(): void {
    this.close();
    const body = this.pending()
      .map(
        (e) => JSON.stringify({ op: 'add', id: e.id, at: e.at, payload: e.payload } satisfies Line<T>) + '\n',
      )
      .join('');
    try {
      replaceFile(this.file, body);
      this.bytes = Buffer.byteLength(body);
    } catch {
      // the current file stays, and is still correct
    }
  }

  close(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}

/** Whether the process a queue file is named after still owns it (its pid not reused by a later process). */
function queueOwnerAlive(file: string, pid: number): boolean {
  try {
    return ownerAlive(pid, statSync(file).mtimeMs);
  } catch {
    return true; // adopted or removed meanwhile: not ours to take
  }
}

/**
 * Opens this process's capture queue in `dir` (`capture-<pid>.jsonl`), so that several sidecars on one data
 * folder never process the same entries; the pending entries of queues whose process died (a crash, kill -9)
 * are adopted first, in their original order. Adoption renames the orphan file before reading it, so two
 * processes never adopt the same file.
 */
export function openCaptureQueue<T>(dir: string, pid = process.pid): DurableQueue<T> {
  mkdirSync(dir, { recursive: true });
  const own = new DurableQueue<T>(join(dir, `capture-${pid}.jsonl`));
  const orphans = readdirSync(dir)
    .map((name) => ({ name, m: /^capture-(\d+)\.jsonl$/.exec(name) }))
    .filter((x) => x.m && Number(x.m[1]) !== pid && !queueOwnerAlive(join(dir, x.name), Number(x.m[1])));
  for (const { name } of orphans) {
    const claimed = join(dir, `adopting-${pid}-${name}`);
    try {
      renameSync(join(dir, name), claimed);
    } catch {
      continue; // another process adopted it first
    }
    const orphan = new DurableQueue<T>(claimed);
    for (const e of orphan.pending()) own.enqueueExisting(e);
    orphan.close();
    rmSync(claimed, { force: true });
  }
  return own;
}
