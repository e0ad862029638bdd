/**
 * The ledger of what agents were shown: one line per recall (or read) served to an agent or a person —
 * when, to whom (protocol.ts `ServedTo`), the query (redacted by the caller), the items (id, kind, score,
 * project) and the tokens — and one line per report an agent made about a memory it was served. Local
 * only: never exported, never in a backup.
 *
 * Files: `<data dir>/ledger/served-YYYY-MM-DD.jsonl`, one per UTC day (0600 in a 0700 folder); a day that
 * passes {@link MAX_PART_BYTES} goes on in `served-YYYY-MM-DD.1.jsonl`, `.2`, …. Retention deletes whole
 * days ({@link RecallLedger.prune}); reads go backwards a chunk at a time and stop at a byte budget, so no
 * read loads a whole file.
 *
 * Crash-safe like the audit log: whole lines appended with O_APPEND (util/append.ts: all or nothing), a
 * torn last line skipped on read. The fsync is coalesced ({@link SYNC_DELAY_MS} after the first line not
 * yet synced, and at close): a killed process loses nothing it wrote, a power cut at most the last second.
 *
 * Erasure (a memory deleted, a project wiped) rewrites the lines that name it in place at the same byte
 * length (the JSON without those items, padded with spaces; a line with nothing left becomes spaces), so
 * other processes appending meanwhile lose nothing; one eraser at a time across processes (a lock file),
 * so two never undo each other's rewrite.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  watch,
  type FSWatcher,
} from 'node:fs';
import { join } from 'node:path';
import { GLOBAL_PROJECT } from '../model';
import type { LedgerEntry, ReportVerdict, ServedTo } from '../protocol';
import { appendFully } from '../util/append';
import { withLock } from '../util/fileLock';
import { rewriteLinesInPlace } from '../util/rewriteLines';

/** A day's file goes on in a new part past this size. */
export const MAX_PART_BYTES = 8 << 20;
/** Lines are fsynced this long after the first one not yet synced. */
const SYNC_DELAY_MS = 1000;
/** Reads go backwards this much at a time. */
const CHUNK_BYTES = 64 << 10;
/** What one read of the ledger may go through (a memory's whole history of being served, typically). */
export const READ_BUDGET_BYTES = 64 << 20;
/** A line longer than this is not a line Mnemo wrote (an entry is ~100 bytes per item): skipped. */
const MAX_LINE_BYTES = 1 << 20;
/** How long an eraser waits for another process's erasure. */
const LOCK_TIMEOUT_MS = 30_000;
const DAY_MS = 86_400_000;
const PART = /^served-(\d{4}-\d{2}-\d{2})(?:\.(\d{1,6}))?\.jsonl$/;

/** An agent said it used, or found wrong, a memory it was served in entry `entry`. */
export interface LedgerReport {
  at: string;
  entry: string;
  memory_id: string;
  project_id: string;
  verdict: ReportVerdict;
  served_to: ServedTo;
}

type Line = ({ type: 'served' } & LedgerEntry) | ({ type: 'report' } & LedgerReport);
/** The ids a line names: its items' and its report's (`"id":"…"`, `"memory_id":"…"`). */
const ID_IN_LINE = /"(?:id|memory_id)":"([^"\\]+)"/g;
/** How every report line starts (`type` is written first). */
const REPORT_PREFIX = '{"type":"report"';

export interface LedgerFilter {
  limit: number;
  /** Served to a client whose name contains this (case-insensitive). */
  client?: string;
  memory_id?: string;
  entry_id?: string;
  project_ids?: string[];
}

export interface LedgerRead {
  entries: LedgerEntry[];
  /** Every matching entry, when the ledger was read to its end (always, with a memory_id filter, within the budget). */
  total?: number;
  more: boolean;
}

/** A new entry id: `srv_` + 16 hex. */
export function newEntryId(): string {
  return `srv_${randomBytes(8).toString('hex')}`;
}

/** The same client: surface, name and version. */
export function sameClient(a: ServedTo, b: ServedTo): boolean {
  return a.surface === b.surface && a.name === b.name && (a.version ?? '') === (b.version ?? '');
}

interface Part {
  name: string;
  day: string;
  part: number;
}

function partName(day: string, part: number): string {
  return part ? `served-${day}.${part}.jsonl` : `served-${day}.jsonl`;
}

/** The ledger's files, newest first (by day, then part). */
function partsNewestFirst(dir: string): Part[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const parts: Part[] = [];
  for (const name of names) {
    const m = PART.exec(name);
    if (m) parts.push({ name, day: m[1]!, part: Number(m[2] ?? 0) });
  }
  return parts.sort((a, b) => b.day.localeCompare(a.day) || b.part - a.part);
}

/** Opens a regular file for reading (never through a symlink), or undefined. */
function openRegular(file: string): number | undefined {
  try {
    if (!lstatSync(file).isFile()) return undefined;
    return openSync(file, 'r');
  } catch {
    return undefined;
  }
}

/** True when the file's last byte is not a newline: a line torn by a crash. */
function endsTorn(file: string): boolean {
  const fd = openRegular(file);
  if (fd === undefined) return false;
  try {
    const size = fstatSync(fd).size;
    const last = Buffer.alloc(1);
    return size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of a file, last first, read backwards {@link CHUNK_BYTES} at a time while `budget.left` lasts
 * (`budget.cut` is set when it stopped early). A line over {@link MAX_LINE_BYTES} is skipped.
 */
function* linesBackwards(file: string, budget: { left: number; cut: boolean }): Generator<string> {
  const fd = openRegular(file);
  if (fd === undefined) return;
  try {
    let pos = fstatSync(fd).size;
    let tail = Buffer.alloc(0); // the end of a line whose start is in an earlier chunk
    let skipping = false;
    while (pos > 0) {
      if (budget.left <= 0) {
        budget.cut = true;
        return;
      }
      const n = Math.min(CHUNK_BYTES, pos);
      pos -= n;
      budget.left -= n;
      const buf = Buffer.alloc(n + tail.length);
      readSync(fd, buf, 0, n, pos);
      tail.copy(buf, n);
      let end = buf.length;
      for (let i = end - 1; i >= 0; i--) {
        if (buf[i] !== 0x0a) continue;
        if (!skipping) yield buf.toString('utf8', i + 1, end);
        skipping = false;
        end = i;
      }
      tail = buf.subarray(0, end);
      if (tail.length > MAX_LINE_BYTES) {
        tail = Buffer.alloc(0);
        skipping = true;
      }
    }
    if (!skipping && tail.length) yield tail.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function parse(raw: string): Line | undefined {
  if (!raw.trim()) return undefined; // an erased line, or the end of the file
  try {
    const l = JSON.parse(raw) as Line;
    if (l?.type === 'served' && Array.isArray(l.items) && Array.isArray(l.project_ids) && l.served_to)
      return l;
    if (l?.type === 'report' && typeof l.memory_id === 'string' && l.served_to) return l;
  } catch {
    // a torn line (a crash mid-write): skipped
  }
  return undefined;
}

function matches(e: LedgerEntry, f: LedgerFilter): boolean {
  if (f.entry_id && e.id !== f.entry_id) return false;
  if (f.memory_id && !e.items.some((i) => i.id === f.memory_id)) return false;
  if (f.client && !e.served_to.name.toLowerCase().includes(f.client.toLowerCase())) return false;
  if (f.project_ids?.length && !e.project_ids.some((p) => f.project_ids!.includes(p))) return false;
  return true;
}

/** The entry as the protocol has it, each item with the verdict reported about it (newest), if any. */
function entryOf(l: Extract<Line, { type: 'served' }>, verdicts?: Map<string, ReportVerdict>): LedgerEntry {
  const { type: _type, ...entry } = l;
  if (!verdicts) return entry;
  return {
    ...entry,
    items: entry.items.map((i) => (verdicts.has(i.id) ? { ...i, verdict: verdicts.get(i.id)! } : i)),
  };
}

/**
 * Rewrites in place every line `edit` changes (a line: the new one; null: spaces); a rewrite that would
 * not fit (it never should: it has fewer items) leaves nothing of the line. Returns how many changed.
 */
function rewriteFile(
  file: string,
  mayName: (raw: string) => boolean,
  edit: (l: Line) => Line | null | undefined,
): number {
  return rewriteLinesInPlace(file, (raw) => {
    if (!mayName(raw)) return undefined; // cheaper than parsing every line
    const line = parse(raw);
    const next = line && edit(line);
    if (next === undefined || !line) return undefined;
    const body = next === null ? '' : JSON.stringify(next);
    return Buffer.byteLength(body) <= Buffer.byteLength(raw) ? body : '';
  });
}

export class RecallLedger {
  private fd: number | undefined;
  private day: string | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private unsynced = false;

  constructor(
    readonly dir: string,
    /** A day's file goes on in a new part past this size (tests make it small). */
    private readonly maxPartBytes = MAX_PART_BYTES,
  ) {}

  /** Appends a served entry (to the file of its UTC day); throws a StoreUnavailableError with one sentence. */
  append(entry: LedgerEntry): void {
    this.write({ type: 'served', ...entry }, entry.at);
  }

  /** Appends an agent's report about a memory it was served. */
  appendReport(report: LedgerReport): void {
    this.write({ type: 'report', ...report }, report.at);
  }

  private write(line: Line, at: string): void {
    const fd = this.open(at.slice(0, 10));
    appendFully(fd, JSON.stringify(line) + '\n', 'the ledger of what agents were shown', false);
    // Past the part's size (this process's lines or anyone's): the next line opens the next part.
    if (fstatSync(fd).size >= this.maxPartBytes) this.closeFile();
    else this.scheduleSync();
  }

  private open(day: string): number {
    if (this.fd !== undefined && this.day === day) return this.fd;
    this.closeFile();
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // The day's newest part, or the next one when it is full (another process may have started it already).
    const latest = partsNewestFirst(this.dir).find((p) => p.day === day);
    let part = latest?.part ?? 0;
    if (latest) {
      try {
        if (lstatSync(join(this.dir, latest.name)).size >= this.maxPartBytes) part++;
      } catch {
        // pruned meanwhile: start it again
      }
    }
    const file = join(this.dir, partName(day, part));
    const fd = openSync(file, 'a', 0o600);
    // A torn last line (a crash mid-write) is ended first, so the next line is not glued to it.
    if (endsTorn(file)) appendFully(fd, '\n', 'the ledger of what agents were shown', false);
    this.fd = fd;
    this.day = day;
    return fd;
  }

  private scheduleSync(): void {
    this.unsynced = true;
    if (this.syncTimer) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      this.sync();
    }, SYNC_DELAY_MS);
    this.syncTimer.unref?.();
  }

  private sync(): void {
    if (this.fd === undefined || !this.unsynced) return;
    this.unsynced = false;
    try {
      fsyncSync(this.fd);
    } catch {
      // the lines are in the file already; only their durability across a power cut is lost
    }
  }

  private closeFile(): void {
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    this.sync();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.day = undefined;
  }

  /**
   * Lines newest first, across the files, within the budget; with `naming`, only reports and the lines
   * whose text contains it (a cheap test before parsing: the rest cannot match); with `sinceDay`, only
   * the files of that UTC day and later.
   */
  private *lines(
    budget: { left: number; cut: boolean },
    naming?: string,
    sinceDay?: string,
  ): Generator<Line> {
    for (const p of partsNewestFirst(this.dir)) {
      if (sinceDay && p.day < sinceDay) return;
      for (const raw of linesBackwards(join(this.dir, p.name), budget)) {
        if (naming && !raw.includes(naming) && !raw.startsWith(REPORT_PREFIX)) continue;
        const line = parse(raw);
        if (line) yield line;
      }
      if (budget.cut) return;
    }
  }

  /** Served entries matching the filter, newest first, with the verdicts reported about their items. */
  read(f: LedgerFilter, budgetBytes = READ_BUDGET_BYTES): LedgerRead {
    const budget = { left: budgetBytes, cut: false };
    // Reports are newer than the entry they are about, so they are met first.
    const verdicts = new Map<string, Map<string, ReportVerdict>>();
    const entries: LedgerEntry[] = [];
    let matched = 0;
    for (const line of this.lines(budget, f.entry_id || f.memory_id)) {
      if (line.type === 'report') {
        const byMemory = verdicts.get(line.entry) ?? new Map<string, ReportVerdict>();
        if (!byMemory.has(line.memory_id)) byMemory.set(line.memory_id, line.verdict);
        verdicts.set(line.entry, byMemory);
        continue;
      }
      if (!matches(line, f)) continue;
      matched++;
      if (entries.length < f.limit) entries.push(entryOf(line, verdicts.get(line.id)));
      // A memory's details say how often it was served: read on to the end; otherwise stop here.
      else if (!f.memory_id) return { entries, more: true };
      if (f.entry_id) return { entries, more: false };
    }
    return {
      entries,
      more: matched > entries.length || budget.cut,
      ...(budget.cut ? {} : { total: matched }),
    };
  }

  /**
   * The newest entry since `since` that served this memory to this client and that the client has not
   * reported on yet: `{ entry }`; `reported` when every such entry was reported already; `none` when the
   * memory was not served to it.
   */
  unreported(
    memoryId: string,
    client: ServedTo,
    since: string,
  ): { entry: LedgerEntry } | 'reported' | 'none' {
    const budget = { left: READ_BUDGET_BYTES, cut: false };
    const reported = new Set<string>();
    let seen = false;
    for (const line of this.lines(budget, memoryId, since.slice(0, 10))) {
      if (line.at < since) break;
      if (!sameClient(line.served_to, client)) continue;
      if (line.type === 'report') {
        if (line.memory_id === memoryId) reported.add(line.entry);
        continue;
      }
      if (!line.items.some((i) => i.id === memoryId)) continue;
      seen = true;
      if (!reported.has(line.id)) return { entry: entryOf(line) };
    }
    return seen ? 'reported' : 'none';
  }

  /** Removes these memories from every entry that served them, and their reports. Returns the lines rewritten. */
  erase(memoryIds: Iterable<string>): Promise<number> {
    const ids = new Set(memoryIds);
    if (ids.size === 0) return Promise.resolve(0);
    const names = (raw: string) => {
      for (const m of raw.matchAll(ID_IN_LINE)) if (ids.has(m[1]!)) return true;
      return false;
    };
    return this.rewrite(names, (l) => {
      if (l.type === 'report') return ids.has(l.memory_id) ? null : undefined;
      const items = l.items.filter((i) => !ids.has(i.id));
      if (items.length === l.items.length) return undefined;
      return { ...l, items, erased: (l.erased ?? 0) + l.items.length - items.length };
    });
  }

  /**
   * Removes a wiped project: its items and reports everywhere, and the entries served only in it (their
   * queries were about it). Returns the lines rewritten.
   */
  wipeProject(project: string): Promise<number> {
    const quoted = JSON.stringify(project);
    return this.rewrite(
      (raw) => raw.includes(quoted),
      (l) => {
        if (l.type === 'report') return l.project_id === project ? null : undefined;
        const projects = l.project_ids.filter((p) => p !== project);
        if (projects.length === l.project_ids.length && !l.items.some((i) => i.project_id === project))
          return undefined;
        if (!projects.some((p) => p !== GLOBAL_PROJECT)) return null;
        const items = l.items.filter((i) => i.project_id !== project);
        return {
          ...l,
          project_ids: projects,
          items,
          erased: (l.erased ?? 0) + l.items.length - items.length,
        };
      },
    );
  }

  private async rewrite(
    mayName: (raw: string) => boolean,
    edit: (l: Line) => Line | null | undefined,
  ): Promise<number> {
    if (partsNewestFirst(this.dir).length === 0) return 0;
    return withLock(join(this.dir, 'erase.lock'), LOCK_TIMEOUT_MS, () => {
      let changed = 0;
      for (const p of partsNewestFirst(this.dir))
        changed += rewriteFile(join(this.dir, p.name), mayName, edit);
      return Promise.resolve(changed);
    });
  }

  /**
   * Deletes the days whose every entry is older than `retentionDays` (at least 1: today's and yesterday's
   * files, which processes append to, always stay). Returns how many files went.
   */
  prune(retentionDays: number, now: Date): number {
    if (!(retentionDays >= 1)) return 0;
    const cutoff = new Date(now.getTime() - retentionDays * DAY_MS).toISOString().slice(0, 10);
    let removed = 0;
    for (const p of partsNewestFirst(this.dir)) {
      if (p.day >= cutoff) continue;
      rmSync(join(this.dir, p.name), { force: true });
      removed++;
    }
    return removed;
  }

  close(): void {
    this.closeFile();
  }
}

/**
 * Calls `onChange` (debounced) when any process on the data folder writes to the ledger: fs.watch on its
 * folder (inotify, FSEvents, ReadDirectoryChangesW). Without a watcher (some network file systems) the
 * view shows new entries on its next refresh.
 */
export function watchLedger(dir: string, onChange: () => void, debounceMs = 250): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (name && !PART.test(name.toString())) return;
      timer ??= setTimeout(() => {
        timer = undefined;
        onChange();
      }, debounceMs);
    });
    watcher.on('error', () => undefined);
  } catch {
    // no watcher on this file system
  }
  return {
    close: () => {
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}
