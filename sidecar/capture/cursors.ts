/**
 * Durable cursors of agent transcripts, in the data folder (`capture/`, 0700; files 0600):
 *
 * - `cursors/<source>/<sha1(path)>.json`: one per transcript file — the byte offset read up to (append-only
 *   files), the file's stamp (a replaced or rewritten file is read again from its start), the adapter's
 *   state, the session's folder and project, what was learned from it. Written whole to a temporary file
 *   with a unique name, then renamed over: atomic for every process on the data folder.
 * - `seen/<source>.log`: the ids of the messages already learned from this agent, one short hash a line,
 *   appended. A message is learned once however many files repeat it (a resumed or forked session, a
 *   rewritten file); a torn last line after a crash is ignored.
 *
 * Order of a capture (capture.ts): the new messages are queued durably first, then their ids are added to
 * `seen`, then the cursor is written. A crash in between re-reads those messages; their ids are not yet
 * seen, so they are queued again, which at worst refreshes the memories they made (never a second copy:
 * memory and turn ids are content hashes). A cursor never runs ahead of what was queued, so nothing is lost.
 * When a transcript disappears (an agent's retention), its cursor stays and nothing learned is touched.
 */
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import type { CaptureSourceId } from '../shared/agentSources';
import { replaceFile } from '../shared/atomicFile';
import type { FileStamp } from './read';
import type { AdapterState } from './types';

export interface FileCursor {
  source: CaptureSourceId;
  path: string;
  sessionId: string;
  /** Bytes read (append-only files); 0 for files read whole. */
  offset: number;
  stamp: FileStamp;
  state?: AdapterState;
  cwd?: string;
  projectId?: string;
  /** Messages learned from this file so far. */
  messages: number;
  /** UTC time of the last capture that learned something from it. */
  capturedAt?: string;
  /** Messages that were still open (held back) at the last read: read again when the file settles. */
  held: number;
}

function hash(text: string, n = 40): string {
  return createHash('sha1').update(text).digest('hex').slice(0, n);
}

export class CursorStore {
  private readonly seenSets = new Map<CaptureSourceId, Set<string>>();
  /** Bytes of each source's seen log this process has read. */
  private readonly seenBytes = new Map<CaptureSourceId, number>();

  constructor(readonly dir: string) {}

  private sourceDir(source: CaptureSourceId): string {
    const d = join(this.dir, 'cursors', source);
    mkdirSync(d, { recursive: true, mode: 0o700 });
    return d;
  }

  private fileOf(source: CaptureSourceId, path: string): string {
    return join(this.sourceDir(source), `${hash(path)}.json`);
  }

  get(source: CaptureSourceId, path: string): FileCursor | undefined {
    try {
      const c = JSON.parse(readFileSync(this.fileOf(source, path), 'utf8')) as FileCursor;
      return c && c.path === path ? c : undefined;
    } catch {
      return undefined;
    }
  }

  put(cursor: FileCursor): void {
    replaceFile(this.fileOf(cursor.source, cursor.path), JSON.stringify(cursor));
  }

  /** Every cursor of a source (for the counts `mnemo sources` and the view show). */
  all(source: CaptureSourceId): FileCursor[] {
    const out: FileCursor[] = [];
    let names: string[] = [];
    try {
      names = readdirSync(join(this.dir, 'cursors', source)).filter((n) => n.endsWith('.json'));
    } catch {
      return out;
    }
    for (const n of names) {
      try {
        out.push(JSON.parse(readFileSync(join(this.dir, 'cursors', source, n), 'utf8')) as FileCursor);
      } catch {
        // a torn cursor is only a cursor to rebuild: the file is read again, seen ids keep it exact
      }
    }
    return out;
  }

  private seenFile(source: CaptureSourceId): string {
    const d = join(this.dir, 'seen');
    mkdirSync(d, { recursive: true, mode: 0o700 });
    return join(d, `${source}.log`);
  }

  /** The ids already learned from a source (loaded once per process, then kept up to date). */
  private seenSet(source: CaptureSourceId): Set<string> {
    let s = this.seenSets.get(source);
    if (!s) {
      s = new Set<string>();
      this.seenSets.set(source, s);
      this.seenBytes.set(source, 0);
      this.refresh(source);
    }
    return s;
  }

  /** Reads what other processes appended to a source's seen ids since this process last looked. */
  refresh(source: CaptureSourceId): void {
    const set = this.seenSets.get(source);
    if (!set) return; // loaded whole on first use
    const file = this.seenFile(source);
    let from = this.seenBytes.get(source) ?? 0;
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return;
    }
    if (size === from) return;
    if (size < from) {
      set.clear();
      from = 0;
    }
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(size - from);
      let done = 0;
      while (done < buf.length) {
        const n = readSync(fd, buf, done, buf.length - done, from + done);
        if (n === 0) break;
        done += n;
      }
      // Only whole lines: a line still being appended is read next time.
      const text = buf.subarray(0, done).toString('utf8');
      const whole = text.lastIndexOf('\n') + 1;
      for (const line of text.slice(0, whole).split('\n')) if (/^[0-9a-f]{20}$/.test(line)) set.add(line);
      this.seenBytes.set(source, from + Buffer.byteLength(text.slice(0, whole)));
    } finally {
      closeSync(fd);
    }
  }

  isSeen(source: CaptureSourceId, messageId: string): boolean {
    return this.seenSet(source).has(hash(messageId, 20));
  }

  /** Records messages as learned (after they were queued durably). */
  markSeen(source: CaptureSourceId, messageIds: readonly string[]): void {
    if (messageIds.length === 0) return;
    const set = this.seenSet(source);
    const fresh = messageIds.map((id) => hash(id, 20)).filter((h) => !set.has(h));
    if (fresh.length === 0) return;
    // Led by a newline: a line torn by a crash in an earlier append stays a line of its own (and is ignored).
    this.refresh(source);
    appendFileSync(this.seenFile(source), '\n' + fresh.join('\n') + '\n', { mode: 0o600 });
    for (const h of fresh) set.add(h);
    this.refresh(source);
  }

  /** How many messages were learned from a source. */
  seenCount(source: CaptureSourceId): number {
    return this.seenSet(source).size;
  }
}
