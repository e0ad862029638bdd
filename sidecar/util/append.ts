/**
 * Durable appends for the JSONL files (capture queue, audit log): the whole text or nothing. `writeSync`
 * may write fewer bytes than asked (a nearly full disk, a signal), so it is looped until every byte is
 * written; if a write or the fsync fails, the file is cut back to its length before the append, so a torn
 * line never stays behind to be fsynced, acknowledged or glued to the next line.
 */
import { fstatSync, fsyncSync, ftruncateSync, writeSync } from 'node:fs';
import { StoreUnavailableError } from '../shared/errors';

/** Error codes that mean "no room": the disk or the user's quota is full. */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
/** How Chroma (SQLite, its Rust WAL) and other libraries say the same in words. */
const NO_SPACE_WORDS = /disk is full|no space left|ENOSPC|os error 28|quota exceeded/i;

/** True when `e` (or its cause) says the disk or quota is full. */
export function isNoSpace(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  if (typeof err?.code === 'string' && NO_SPACE.has(err.code)) return true;
  const words = `${String(err?.message ?? e ?? '')} ${String((err?.cause as { message?: unknown })?.message ?? err?.cause ?? '')}`;
  return NO_SPACE_WORDS.test(words);
}

/** One sentence for a failed write of `what` ("the capture queue"), never a raw errno. */
export function writeFailure(what: string, e: unknown): StoreUnavailableError {
  const code = (e as NodeJS.ErrnoException)?.code ?? '';
  const message = isNoSpace(e)
    ? `The disk is full, so ${what} could not be written; free some space and try again.`
    : `${what[0]!.toUpperCase()}${what.slice(1)} could not be written (${code || 'I/O error'}); check the data folder's disk.`;
  return new StoreUnavailableError(message, { cause: e });
}

/** Writes every byte of `buf` at the end of `fd` (opened with 'a'), looping over short writes. */
function writeFully(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) {
    const n = writeSync(fd, buf, off, buf.length - off);
    if (n <= 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
    off += n;
  }
}

/**
 * Appends `text` to `fd` completely (and fsyncs when `sync`), or leaves the file as it was and throws a
 * {@link StoreUnavailableError} naming `what`. Returns the number of bytes appended.
 */
export function appendFully(fd: number, text: string, what: string, sync = true): number {
  const buf = Buffer.from(text, 'utf8');
  const before = fstatSync(fd).size;
  try {
    writeFully(fd, buf);
    if (sync) fsyncSync(fd);
    return buf.length;
  } catch (e) {
    try {
      ftruncateSync(fd, before); // shrinking needs no free space
    } catch {
      // the file may keep a torn tail: readers skip lines that do not parse
    }
    throw writeFailure(what, e);
  }
}
