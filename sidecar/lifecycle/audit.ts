/**
 * The audit log: every change to a memory, append-only JSONL with fsync, one file per store.
 * Survives crashes (a torn last line is ignored on read), exported with backups.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditEntry } from '../protocol';
import { appendFully } from '../util/append';

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
    appendFully(this.open(), entries.map((e) => JSON.stringify(e)).join('\n') + '\n', 'the audit log');
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
      (e) => (!filter.memory_id || e.memory_id === filter.memory_id) && (!filter.project_id || e.project_id === filter.project_id),
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
