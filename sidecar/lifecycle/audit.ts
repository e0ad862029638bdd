/**
 * The audit log: every change to a memory, append-only JSONL with fsync, one file per store.
 * Survives crashes (a torn last line is ignored on read), exported with backups.
 *
 * Erasure: deleting a memory, or editing its text, erases that memory's earlier content from the log
 * (the events stay: when, what, who; the texts go), so a deleted memory is not kept in the audit log
 * or in any later backup. Erasure overwrites each affected line in place with a line of the same byte
 * length (the content replaced by "[erased]", padded with spaces, which JSON ignores), so other
 * processes appending to the same file at the same time lose nothing.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditEntry } from '../protocol';
import { appendFully } from '../util/append';
import { rewriteLinesInPlace } from '../util/rewriteLines';

/** Marks erased content. */
export const ERASED = '[erased]';

/** Fields whose values are not a memory's content: they stay readable after erasure. */
const NOT_CONTENT = new Set([
  'status',
  'confidence_score',
  'times_seen',
  'use_count',
  'category',
  'source_type',
  'is_actionable',
  'project_id',
  'decayed_through',
  'score',
  'embedding_model',
  'embedding_dim',
  'created_at',
  'updated_at',
  'last_seen_at',
  'last_used_at',
]);

/** The entry with every content value of `changes` erased (the keys stay, so the event still says what changed). */
function eraseContent(e: AuditEntry): AuditEntry {
  if (!e.changes) return e;
  // A value shorter than the marker becomes '', so an erased line is never longer than the original.
  const erase = (v: unknown): unknown =>
    v === null || v === undefined
      ? v
      : (JSON.stringify(v)?.length ?? 0) >= JSON.stringify(ERASED).length
        ? ERASED
        : '';
  const changes: Record<string, [unknown, unknown]> = {};
  for (const [k, v] of Object.entries(e.changes))
    changes[k] = NOT_CONTENT.has(k) ? v : [erase(v[0]), erase(v[1])];
  return { ...e, changes };
}

function hasContent(e: AuditEntry): boolean {
  return JSON.stringify(eraseContent(e)) !== JSON.stringify(e);
}

/** True for an event after which the memory's earlier texts must go: a delete, or an edit of its text. */
function erases(e: AuditEntry): boolean {
  return (
    !!e.memory_id && (e.action === 'delete' || (e.action === 'update' && !!e.changes && 'text' in e.changes))
  );
}

export class AuditLog {
  private fd: number | undefined;

  constructor(readonly file: string) {}

  private open(): number {
    if (this.fd === undefined) {
      mkdirSync(dirname(this.file), { recursive: true });
      this.fd = openSync(this.file, 'a', 0o600);
    }
    return this.fd;
  }

  /**
   * Appends entries durably (one fsync for the batch): all of them or none (a failed write is cut back);
   * a full disk throws a StoreUnavailableError with one sentence.
   */
  append(entries: AuditEntry[]): void {
    if (entries.length === 0) return;
    // The last erasing event of each memory in this batch: everything about it before goes, in the file too.
    const lastErasing = new Map<string, number>();
    entries.forEach((e, i) => erases(e) && lastErasing.set(e.memory_id!, i));
    if (lastErasing.size) this.erase(new Set(lastErasing.keys()));
    const lines = entries.map((e, i) => {
      const upTo = e.memory_id ? lastErasing.get(e.memory_id) : undefined;
      if (upTo === undefined || i > upTo) return JSON.stringify(e);
      if (i < upTo || e.action === 'delete') return JSON.stringify(eraseContent(e));
      // The text edit itself keeps the new text (it is what the memory says now) and drops the old one.
      return JSON.stringify({
        ...e,
        changes: { ...eraseContent(e).changes, text: [ERASED, e.changes!.text![1]] },
      });
    });
    appendFully(this.open(), lines.join('\n') + '\n', 'the audit log');
  }

  /**
   * Erases the content of every entry about these memories, in place (same byte length per line), and
   * fsyncs. Returns how many lines changed.
   */
  erase(memoryIds: ReadonlySet<string> | string[]): number {
    const ids = memoryIds instanceof Set ? memoryIds : new Set(memoryIds);
    if (ids.size === 0) return 0;
    return rewriteLinesInPlace(this.file, (raw) => {
      let entry: AuditEntry | undefined;
      try {
        entry = JSON.parse(raw) as AuditEntry;
      } catch {
        return undefined; // a torn last line: left alone
      }
      return entry?.memory_id && ids.has(entry.memory_id) && hasContent(entry)
        ? JSON.stringify(eraseContent(entry))
        : undefined;
    });
  }

  /**
   * `mnemo compact`: erases what the log still holds of texts that are gone — every entry about a deleted
   * memory, and for an edited one everything before its last text edit (the edit keeps its new text) — as
   * {@link append} has done since it erases; a log written by an older version still holds them (issue 39).
   * In place, as {@link erase}. Returns how many lines changed.
   */
  eraseGone(): number {
    const last = new Map<string, number>();
    this.rewrite((e, at) => {
      if (erases(e)) last.set(e.memory_id!, at);
      return undefined;
    });
    if (last.size === 0) return 0;
    return this.rewrite((e, at) => {
      const upTo = e.memory_id ? last.get(e.memory_id) : undefined;
      if (upTo === undefined || at > upTo || !hasContent(e)) return undefined;
      if (at < upTo || e.action === 'delete') return eraseContent(e);
      const text = e.changes?.text;
      return text && text[0] !== ERASED
        ? { ...e, changes: { ...eraseContent(e).changes, text: [ERASED, text[1]] } }
        : undefined;
    });
  }

  /** {@link rewriteLinesInPlace} over the entries, numbered in order (a line that does not parse is not one). */
  private rewrite(replace: (entry: AuditEntry, at: number) => AuditEntry | undefined): number {
    let at = 0;
    return rewriteLinesInPlace(this.file, (raw) => {
      let entry: unknown;
      try {
        entry = JSON.parse(raw);
      } catch {
        return undefined; // a torn last line: left alone
      }
      if (!entry || typeof entry !== 'object') return undefined;
      const next = replace(entry as AuditEntry, at++);
      return next && JSON.stringify(next);
    });
  }

  /** All entries, oldest first; a torn trailing line (crash mid-write) is skipped. */
  readAll(): AuditEntry[] {
    if (!existsSync(this.file)) return [];
    const out: AuditEntry[] = [];
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as AuditEntry);
      } catch {
        // torn write at the end of the file after a crash: ignore
      }
    }
    return out;
  }

  query(filter: { memory_id?: string; project_id?: string; limit?: number }): AuditEntry[] {
    const all = this.readAll().filter(
      (e) =>
        (!filter.memory_id || e.memory_id === filter.memory_id) &&
        (!filter.project_id || e.project_id === filter.project_id),
    );
    all.reverse();
    return filter.limit ? all.slice(0, filter.limit) : all;
  }

  close(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}
