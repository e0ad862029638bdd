/**
 * Changes made by other processes on the same data folder (an MCP server, `mnemo import-rules`, a second
 * sidecar) reach the editor: every change is appended to the shared audit log, so the sidecar tails it
 * and turns entries appended since it started into `mnemo/memories/changed` — the one path by which the
 * views refresh. Reads (`export` entries) change nothing and are skipped. Its own writes come back too:
 * {@link RecentlyAnnounced} drops that echo (a second refresh a moment after the first rebuilt the tree
 * under a memory just revealed and selected, and the selection was lost). Uses fs.watch on the audit
 * folder (inotify, FSEvents, ReadDirectoryChangesW), debounced.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  watch,
  type FSWatcher,
} from 'node:fs';
import { basename, dirname } from 'node:path';
import type { AuditEntry } from '../protocol';

export interface AuditTail {
  close(): void;
}

export function tailAuditLog(
  file: string,
  onChanged: (projectIds: string[], ids: string[]) => void,
  debounceMs = 250,
): AuditTail {
  mkdirSync(dirname(file), { recursive: true });
  let offset = existsSync(file) ? statSync(file).size : 0;
  let partial = '';
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const readNew = () => {
    timer = undefined;
    if (closed || !existsSync(file)) return;
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return;
    }
    const projects = new Set<string>();
    const ids = new Set<string>();
    try {
      const size = fstatSync(fd).size;
      if (size < offset) offset = 0; // replaced (restore from backup): read it again
      while (offset < size) {
        const buf = Buffer.alloc(Math.min(1 << 20, size - offset));
        const n = readSync(fd, buf, 0, buf.length, offset);
        if (n <= 0) break;
        offset += n;
        const text = partial + buf.subarray(0, n).toString('utf8');
        const lines = text.split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.trim()) continue;
          try {
            const e = JSON.parse(line) as AuditEntry;
            if (e.action === 'export') continue;
            if (e.project_id) projects.add(e.project_id);
            if (e.memory_id) ids.add(e.memory_id);
          } catch {
            // a torn line of a crashed writer
          }
        }
      }
    } finally {
      closeSync(fd);
    }
    if (projects.size) onChanged([...projects], [...ids]);
  };

  const name = basename(file);
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), { persistent: false }, (_ev, f) => {
      if (closed || (f && f.toString() !== name)) return;
      timer ??= setTimeout(readNew, debounceMs);
    });
    watcher.on('error', () => undefined);
  } catch {
    // no watcher on this file system: other processes' changes show on the next refresh
  }
  return {
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}

/**
 * The memories this process announced itself lately: the audit tail's echo of its own writes is not
 * announced a second time. An id another process changed meanwhile is announced again once the window
 * has passed (or at once when it was not announced here).
 */
export class RecentlyAnnounced {
  private readonly at = new Map<string, number>();

  constructor(
    private readonly windowMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** This process announced these ids. */
  note(ids: readonly string[] | undefined): void {
    const t = this.now();
    for (const id of ids ?? []) this.at.set(id, t);
  }

  /**
   * Of what the tail read, what is still to announce: undefined when every id was announced here within
   * the window (nothing to do); the entries without ids (a whole project) are always announced.
   */
  unannounced(projectIds: string[], ids: string[]): { projectIds: string[]; ids: string[] } | undefined {
    const t = this.now();
    for (const [id, when] of this.at) if (t - when > this.windowMs) this.at.delete(id);
    if (ids.length === 0) return { projectIds, ids };
    const fresh = ids.filter((id) => !this.at.has(id));
    return fresh.length ? { projectIds, ids: fresh } : undefined;
  }
}
