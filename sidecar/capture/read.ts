/**
 * Bounded, read-only access to other programs' transcript files: regular files only (a symbolic link is
 * not followed), whole files up to a size cap, append-only files line by line from a byte offset in
 * bounded passes, and directory walks with a depth and entry limit. A source's files are never written.
 * Nothing here throws for a bad file: the caller gets a reason to count and goes on with the next one.
 */
import { createHash } from 'node:crypto';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The largest transcript read whole (JSON formats, rewritten files): larger ones are skipped with a note. */
export const MAX_WHOLE_FILE_BYTES = 64 * 1024 * 1024;
/** The longest JSONL line read: a longer record (one multi-megabyte blob) is skipped and counted. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** Bytes of an append-only transcript read in one pass; the rest is read in the next (a 2 GB file never sits in memory). */
export const PASS_BYTES = 64 * 1024 * 1024;

const CHUNK = 1 << 20;

/** A file's identity and size as last seen: a replaced or rewritten file is noticed and read again from its start. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
  /** sha1 of the first 256 bytes (a rewritten file with the same inode and a different start). */
  head: string;
}

export type Stamped = { ok: true; stamp: FileStamp } | { ok: false; reason: string };

function errnoReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return 'the file disappeared';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  return (e as Error)?.message ?? String(e);
}

/** The stamp of a regular file, or why it cannot be read (gone, a link, a folder, permission). */
export async function stampOf(path: string): Promise<Stamped> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return { ok: false, reason: 'a symbolic link (not followed)' };
    if (!st.isFile()) return { ok: false, reason: 'not a regular file' };
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(256, st.size));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const head = createHash('sha1').update(buf.subarray(0, bytesRead)).digest('hex');
      return { ok: true, stamp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, head } };
    } finally {
      await fh.close();
    }
  } catch (e) {
    return { ok: false, reason: errnoReason(e) };
  }
}

export type WholeFile = { ok: true; text: string } | { ok: false; reason: string };

/** A whole regular file as UTF-8 text, at most {@link MAX_WHOLE_FILE_BYTES}; binary or invalid UTF-8 is refused. */
export async function readWholeFile(path: string, maxBytes = MAX_WHOLE_FILE_BYTES): Promise<WholeFile> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return { ok: false, reason: 'a symbolic link (not followed)' };
    if (!st.isFile()) return { ok: false, reason: 'not a regular file' };
    if (st.size > maxBytes)
      return { ok: false, reason: `larger than ${Math.round(maxBytes / 1024 / 1024)} MB (not read)` };
    const fh = await open(path, 'r');
    let bytes: Buffer;
    try {
      bytes = Buffer.alloc(st.size);
      let done = 0;
      while (done < bytes.length) {
        const { bytesRead } = await fh.read(bytes, done, bytes.length - done, done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      bytes = bytes.subarray(0, done);
    } finally {
      await fh.close();
    }
    if (bytes.includes(0)) return { ok: false, reason: 'binary data, not text' };
    try {
      return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      return { ok: false, reason: 'not UTF-8 text' };
    }
  } catch (e) {
    return { ok: false, reason: errnoReason(e) };
  }
}

/** One whole line of an append-only file, with where it starts. */
export interface Line {
  text: string;
  /** Byte offset of its first byte. */
  start: number;
}

export interface LinesRead {
  lines: Line[];
  /** Byte offset after the last whole line read (a partly written last line is left for next time). */
  end: number;
  /** Lines that could not be used, by reason. */
  skipped: Record<string, number>;
  /** The pass stopped at its byte budget: more whole lines follow. */
  more: boolean;
  /** Why the file could not be read at all. */
  error?: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The whole lines of a file from `offset`, at most `maxBytes` of them in this pass. A line longer than
 * {@link MAX_LINE_BYTES}, with NUL bytes or invalid UTF-8 is skipped and counted; a last line without its
 * newline is not read (it is still being written). Never holds more than one pass in memory.
 */
export async function readLines(path: string, offset: number, maxBytes = PASS_BYTES): Promise<LinesRead> {
  const out: LinesRead = { lines: [], end: offset, skipped: {}, more: false };
  const skip = (why: string) => (out.skipped[why] = (out.skipped[why] ?? 0) + 1);
  let fh;
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return { ...out, error: 'a symbolic link (not followed)' };
    if (!st.isFile()) return { ...out, error: 'not a regular file' };
    fh = await open(path, 'r');
  } catch (e) {
    return { ...out, error: errnoReason(e) };
  }
  try {
    let pos = offset;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let lineStart = offset;
    let oversized = false;
    const buf = Buffer.alloc(CHUNK);
    for (;;) {
      if (pos - offset >= maxBytes) {
        out.more = true;
        // Inside a record longer than a line may be: its bytes so far are skipped for good, so a file of
        // one endless line (binary junk, a 2 GB blob) moves on instead of being read again from here.
        if (oversized) {
          skip(`a record over ${MAX_LINE_BYTES / 1024 / 1024} MB`);
          out.end = pos;
        }
        break;
      }
      let n: number;
      try {
        n = (await fh.read(buf, 0, buf.length, pos)).bytesRead;
      } catch (e) {
        out.error = errnoReason(e);
        break;
      }
      if (n === 0) break;
      let from = 0;
      for (;;) {
        const nl = buf.indexOf(0x0a, from);
        if (nl < 0 || nl >= n) {
          if (!oversized) {
            pending.push(Buffer.from(buf.subarray(from, n)));
            pendingBytes += n - from;
            if (pendingBytes > MAX_LINE_BYTES) {
              oversized = true;
              pending = [];
              pendingBytes = 0;
            }
          }
          break;
        }
        const lineEnd = pos + nl + 1;
        if (oversized || pendingBytes + (nl - from) > MAX_LINE_BYTES) {
          skip(`a record over ${MAX_LINE_BYTES / 1024 / 1024} MB`);
          oversized = false;
        } else {
          const bytes = pendingBytes
            ? Buffer.concat([...pending, buf.subarray(from, nl)])
            : buf.subarray(from, nl);
          useLine(bytes, lineStart, out, skip);
        }
        pending = [];
        pendingBytes = 0;
        lineStart = lineEnd;
        out.end = lineEnd;
        from = nl + 1;
      }
      pos += n;
    }
  } finally {
    await fh.close();
  }
  return out;
}

function useLine(bytes: Buffer, start: number, out: LinesRead, skip: (why: string) => void): void {
  let b = bytes;
  if (b.length && b[b.length - 1] === 0x0d) b = b.subarray(0, b.length - 1);
  if (b.length === 0) return;
  if (b.includes(0)) return skip('binary data');
  try {
    out.lines.push({ text: decoder.decode(b), start });
  } catch {
    skip('not UTF-8 text');
  }
}

/** The entries of a folder (names and kinds), or [] when it cannot be read. */
export async function listDir(dir: string): Promise<{ name: string; dir: boolean; file: boolean }[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, dir: e.isDirectory(), file: e.isFile() }));
  } catch {
    return [];
  }
}

/** The folders directly inside `root` (name and full path); none when it cannot be read. */
export async function subfolders(root: string): Promise<{ name: string; path: string }[]> {
  return (await listDir(root)).filter((e) => e.dir).map((e) => ({ name: e.name, path: join(root, e.name) }));
}

/** The most files one walk returns: a home folder full of transcripts never stalls discovery. */
export const MAX_WALK_FILES = 50_000;

/**
 * Regular files under `root` whose name matches, at most `depth` folders deep (symbolic links are not
 * followed), at most {@link MAX_WALK_FILES}.
 */
export async function walkFiles(
  root: string,
  match: (name: string) => boolean,
  depth: number,
): Promise<string[]> {
  const out: string[] = [];
  const visit = async (dir: string, level: number): Promise<void> => {
    for (const e of await listDir(dir)) {
      if (out.length >= MAX_WALK_FILES) return;
      const p = join(dir, e.name);
      if (e.file && match(e.name)) out.push(p);
      else if (e.dir && level < depth) await visit(p, level + 1);
    }
  };
  await visit(root, 0);
  return out.sort();
}

/** Parses one JSON line, or undefined when it is not JSON (counted by the caller). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads a small JSON metadata file (an index, a marker), undefined when absent or unreadable. */
export async function readJsonFile(path: string, maxBytes = 8 * 1024 * 1024): Promise<unknown> {
  const r = await readWholeFile(path, maxBytes);
  return r.ok ? parseJson(r.text.replace(/^\uFEFF/, '')) : undefined;
}

/** The first whole lines of a file (a metadata record), at most `maxBytes` read. */
export async function firstLines(path: string, maxBytes = 1024 * 1024): Promise<string[]> {
  const r = await readLines(path, 0, maxBytes);
  return r.lines.map((l) => l.text);
}
