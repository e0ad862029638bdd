/**
 * Whole-file writes in the data folder, safe when several Mnemo processes (the sidecar, CLIs, MCP servers,
 * two agents starting at once) write the same file: no reader ever sees half a file, and no writer's
 * temporary file is renamed away by another.
 *
 * `file.tmp` + rename is atomic for one process, not for two: both write the same temporary name, the first
 * rename takes the second's file away and the second rename fails (ENOENT). write-file-atomic names each
 * temporary file after the process, thread and call, fsyncs it and renames it over (docs/dependencies.md).
 */
import { closeSync, fsyncSync, linkSync, openSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import writeFileAtomic from 'write-file-atomic';

/**
 * Replaces `file` with `data` (created when missing): a unique temporary file, fsynced, renamed over.
 * Concurrent writers each land whole; the last rename wins. A symlinked `file` is written through (its
 * target is replaced), never turned into a plain file.
 */
export function replaceFile(file: string, data: string | Buffer, mode = 0o600): void {
  writeFileAtomic.sync(file, data, { mode, fsync: true });
}

/**
 * Creates `file` with `data` unless it already exists, whole or not at all; true when this call created
 * it. The text is written to a unique temporary file and hard-linked into place: unlike rename, a link
 * fails when the name is taken, so of two processes creating the same file at once exactly one wins and
 * the other reads the winner's complete text. Where the file system has no hard links, the file is
 * created with O_EXCL (still exactly one winner).
 */
export function createFileOnce(file: string, data: string | Buffer, mode = 0o600): boolean {
  const tmp = `${file}.${process.pid}-${threadId}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    createSynced(tmp, data, mode);
    try {
      linkSync(tmp, file);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw e;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  try {
    createSynced(file, data, mode);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** Creates `file` (O_EXCL) with all of `data`, fsynced; a file it could not fill (a full disk) is removed. */
function createSynced(file: string, data: string | Buffer, mode: number): void {
  const fd = openSync(file, 'wx', mode);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    let done = 0;
    while (done < buf.length) done += writeSync(fd, buf, done);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(file, { force: true });
    throw e;
  }
  closeSync(fd);
}
