/**
 * Reads one chat export for Import Chat without blocking the extension host (no `vscode` import):
 * decoding and parsing a large export takes 100+ ms of one core (2 MB here), so it runs in a worker thread
 * (`chatImportWorker.ts`) and the sessions come back one message each, consumed in order.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ParsedSession } from './chatExport';

/** What the worker posts, in this order: `head`, one `session` each, `end`; or a single `error`. */
export type FromChatWorker =
  | { type: 'head'; sessions: number; messages: number }
  | { type: 'session'; session: ParsedSession }
  | { type: 'end' }
  /** json: not valid JSON; shape: valid JSON of an unknown shape (the message says why); internal: a bug. */
  | { type: 'error'; kind: 'json' | 'shape' | 'internal'; message: string };

export type ChatFile =
  | { ok: true; sessions: number; messages: number; read(): AsyncGenerator<ParsedSession> }
  | { ok: false; kind: 'json' | 'shape'; message: string };

/**
 * Path of the worker script: `chatImportWorker.js` next to `dist/extension.js` (a separate esbuild entry), or
 * `chatImportWorker.ts` next to this file when running from source (tests).
 */
export function chatWorkerPath(): string {
  return /\.[cm]?ts$/.test(__filename)
    ? path.join(__dirname, 'chatImportWorker.ts')
    : path.join(__dirname, 'chatImportWorker.js');
}

function startWorker(file: string, bytes: Uint8Array): Worker {
  // A `.ts` worker (source and tests) goes through tsx's CommonJS hook.
  const script = /\.[cm]?ts$/.test(file)
    ? `require('tsx/cjs/api').register(); require(${JSON.stringify(file)});`
    : file;
  const eval_ = script !== file;
  // The bytes move to the worker (no copy) when they own their buffer; otherwise they are copied.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  try {
    return new Worker(script, {
      eval: eval_,
      workerData: { bytes },
      transferList: own ? [bytes.buffer as ArrayBuffer] : [],
    });
  } catch {
    return new Worker(script, { eval: eval_, workerData: { bytes } });
  }
}

/**
 * Parses one chat export (its raw bytes, UTF-8 JSON) in a worker thread. Resolves once the worker knows the
 * file's shape: not JSON or not a chat ({@link ChatFile} `ok: false`, with one sentence), or its sessions,
 * read in order with `read()`. A worker that crashes rejects (the read, or this promise).
 */
export function parseChatFile(bytes: Uint8Array, workerFile = chatWorkerPath()): Promise<ChatFile> {
  const worker = startWorker(workerFile, bytes);
  const queue: FromChatWorker[] = [];
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const next = async (): Promise<FromChatWorker> => {
    while (queue.length === 0) {
      if (failure) throw failure;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    return queue.shift()!;
  };
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  worker.on('message', (msg: FromChatWorker) => {
    queue.push(msg);
    notify();
  });
  worker.on('error', (err) => {
    failure = err;
    notify();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`The chat import worker stopped (exit code ${code}) before it was done.`);
    notify();
  });
  const stop = (): void => void worker.terminate();

  return next().then(
    (first): ChatFile => {
      if (first.type === 'error') {
        stop();
        if (first.kind === 'internal') throw new Error(first.message);
        return { ok: false, kind: first.kind, message: first.message };
      }
      if (first.type !== 'head') {
        stop();
        throw new Error(`The chat import worker sent "${first.type}" first.`);
      }
      async function* read(): AsyncGenerator<ParsedSession> {
        try {
          for (;;) {
            const msg = await next();
            if (msg.type === 'end') return;
            if (msg.type === 'session') yield msg.session;
            else if (msg.type === 'error') throw new Error(msg.message);
          }
        } finally {
          stop();
        }
      }
      return { ok: true, sessions: first.sessions, messages: first.messages, read };
    },
    (err: unknown) => {
      stop();
      throw err;
    },
  );
}
