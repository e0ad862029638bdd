/**
 * Erasure in an append-only JSONL file (the audit log, the ledger): lines are rewritten in place, each at
 * its own byte length — the new text padded with spaces, which JSON ignores — so processes appending to
 * the file meanwhile lose nothing. A torn last line is passed like any other (it does not parse).
 */
import { closeSync, fsyncSync, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';

/**
 * Calls `edit` with every line of `file` (a regular file; missing: nothing to do); a string it returns
 * replaces the line when it is not longer, `undefined` keeps it. Fsyncs when a line changed; returns how
 * many did.
 */
export function rewriteLinesInPlace(file: string, edit: (line: string) => string | undefined): number {
  let bytes: Buffer;
  try {
    if (!lstatSync(file).isFile()) return 0;
    bytes = readFileSync(file);
  } catch {
    return 0;
  }
  const fd = openSync(file, 'r+');
  let changed = 0;
  try {
    let start = 0;
    while (start < bytes.length) {
      let end = bytes.indexOf(0x0a, start);
      if (end < 0) end = bytes.length;
      const raw = bytes.subarray(start, end);
      const next = edit(raw.toString('utf8'));
      const replacement = next === undefined ? undefined : Buffer.from(next, 'utf8');
      if (replacement && replacement.length <= raw.length) {
        const line = Buffer.alloc(raw.length, 0x20); // spaces after the JSON: still one valid line
        replacement.copy(line);
        writeSync(fd, line, 0, line.length, start);
        changed++;
      }
      start = end + 1;
    }
    if (changed) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return changed;
}
