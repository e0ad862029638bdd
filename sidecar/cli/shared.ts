/**
 * What the CLI's commands share (cli.ts dispatches to them): usage errors, the one stdout writer, the
 * transcript reader, option checks, the backup progress and Ctrl-C, and a service for one command.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig, type SidecarConfigInput } from '../config';
import type { BackupProgress, CancellationFlag } from '../backup/index';
import { createEmbeddingProvider } from '../embed/index';
import { errorMessage } from '../shared/errors';
import { GLOBAL_PROJECT, tierOf, type Memory } from '../model';
import { oneLine } from '../shared/text';
import type { RawMessage } from '../pipeline/types';
import { MnemoService } from '../service';

export class UsageError extends Error {}

/**
 * Refuses the global project for a command that writes (`ingest`, `mcp`, `import-rules`): memories reach
 * global only by promotion, so no command-line flag or MNEMO_PROJECT plants one there.
 */
export function refuseGlobalProject(project: string | undefined, what: string): void {
  if (project?.trim().toLowerCase() === GLOBAL_PROJECT)
    throw new UsageError(
      `Memories reach the global project only by promotion; ${what} into a project, then promote what holds everywhere.`,
    );
}

/** Set when stdout's reader went away (`mnemo list | head -1`): the rest of the output is dropped quietly. */
let stdoutGone = false;

/** stdout's reader went away: {@link out} drops the rest quietly. */
export function dropOutput(): void {
  stdoutGone = true;
}

export function out(line = ''): void {
  if (!stdoutGone) process.stdout.write(line + '\n');
}

/** The largest transcript the CLI reads (checked while reading, so /dev/zero or a 3 GB file stop early). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * Reads a file (or stdin for `-`) as UTF-8, refusing more than {@link MAX_INPUT_BYTES} before the rest is
 * read, invalid UTF-8 (never stored as U+FFFD) and dropping a leading byte-order mark.
 */
export function readTextInput(file: string, maxBytes = MAX_INPUT_BYTES): string {
  const name = file === '-' ? 'stdin' : file;
  let fd: number;
  try {
    fd = file === '-' ? 0 : openSync(file, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      `Cannot read ${name}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : errnoSentence(e)}.`,
    );
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') continue; // a non-blocking stdin pipe: try again
        if (code === 'EOF') break;
        throw new UsageError(
          `Cannot read ${name}: ${code === 'EISDIR' ? 'it is a folder' : errnoSentence(e)}.`,
        );
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes)
        throw new UsageError(
          `${name} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB; split it into smaller transcripts.`,
        );
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
  } finally {
    if (fd !== 0) closeSync(fd);
  }
  const bytes = Buffer.concat(chunks);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new UsageError(`${name} is not valid UTF-8 text; save it as UTF-8 and try again.`);
  }
}

/** A positive whole number option, or a usage error naming it. */
export function positiveInt(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive whole number.`);
  return n;
}

/** An errno as words, never the raw "ENOSPC: no space left on device, write". */
export function errnoSentence(e: unknown): string {
  const words: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is exceeded',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ENOENT: 'no such file or folder',
    EISDIR: 'it is a folder',
    ENOTDIR: 'a part of the path is not a folder',
    EROFS: 'the file system is read-only',
    EMFILE: 'too many files are open',
    EIO: 'an input/output error occurred',
    EPIPE: 'the output was closed',
  };
  const code = (e as NodeJS.ErrnoException)?.code;
  return (
    (code && words[code]) ||
    errorMessage(e)
      .replace(/^[A-Z]+: /, '')
      .replace(/[.\s]+$/, '')
  );
}

/** Control characters (ESC, BEL, C1…) in text we echo become visible escapes, never terminal commands. */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** Reads a transcript: a JSON array of messages or {"messages": [...]}. */
export function parseTranscript(text: string, name: string): RawMessage[] {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, '')); // a UTF-8 BOM (Windows editors) is not JSON
  } catch (e) {
    throw new UsageError(`${name} is not valid JSON (${errorMessage(e)}).`);
  }
  const messages = Array.isArray(data) ? data : (data as { messages?: unknown })?.messages;
  if (!Array.isArray(messages))
    throw new UsageError(`${name} must hold a JSON array of messages or an object with a "messages" array.`);
  messages.forEach((m: unknown, i) => {
    const msg = m as Partial<RawMessage> | null;
    if (!msg || typeof msg !== 'object' || typeof msg.content !== 'string' || typeof msg.role !== 'string') {
      throw new UsageError(`Message ${i + 1} of ${name} needs a string "role" and a string "content".`);
    }
  });
  return messages as RawMessage[];
}

/** Progress lines on stderr when it is a terminal (stdout stays clean for --json). */
export function progressToStderr(p: BackupProgress): void {
  if (process.stderr.isTTY)
    process.stderr.write(
      `\r${p.message}${p.percent !== undefined ? ` ${p.percent}%` : ''}\x1b[K${p.percent === 100 ? '\n' : ''}`,
    );
}

/** Ctrl-C cancels a backup or import cleanly (an import is rolled back) instead of killing the process midway. */
export function cancelOnInterrupt(): CancellationFlag {
  const token = { isCancellationRequested: false };
  process.once('SIGINT', () => {
    token.isCancellationRequested = true;
    process.stderr.write('\nCancelling…\n');
  });
  return token;
}

export function shortDate(iso: string): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
}

export function describe(m: Memory): string {
  const marks = [m.status !== 'active' ? m.status : '', tierOf(m), m.is_actionable ? 'actionable' : '']
    .filter(Boolean)
    .join(', ');
  return `${m.id}  ${(m.confidence_score * 100).toFixed(0).padStart(3)}%  ${m.category.padEnd(11)} ${oneLine(m.text)}${marks ? `  [${marks}]` : ''}`;
}

export async function withService<T>(
  cfgInput: SidecarConfigInput,
  fn: (svc: MnemoService) => Promise<T>,
): Promise<T> {
  const config = resolveConfig(cfgInput);
  const embedder = createEmbeddingProvider({
    ...config.embedding,
    cacheDir: join(config.dataDir, 'models'),
    onProgress: (p) =>
      process.stderr.write(`${p.message}${p.percent !== undefined ? ` ${p.percent.toFixed(0)}%` : ''}\n`),
    log: () => undefined,
  });
  const svc = new MnemoService({
    config,
    embedder,
    backgroundQueue: false,
    events: { log: (l) => process.env.MNEMO_DEBUG && process.stderr.write(l + '\n') },
  });
  try {
    await svc.start();
    return await fn(svc);
  } finally {
    await svc.dispose();
  }
}
