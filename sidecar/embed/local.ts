/**
 * Local embeddings: a transformers.js feature-extraction pipeline (mean pooling, L2-normalized)
 * running off the JSON-RPC thread in a worker (localWorker.ts): a forked child process by default,
 * or a worker thread (`transport: 'thread'`). Why a process by default: onnxruntime-node 1.21's
 * binding registers itself only once per process, so a second worker thread (after a restart, a
 * model change or a crash) fails with "Module did not self-register"; a child process can always be
 * restarted, and killing it returns all of the model's memory.
 *
 * Where the weights come from, in order:
 *   1. `modelPath` (or `$MNEMO_EMBEDDING_MODEL_PATH`): a model folder, or a root holding `<model>/`;
 *   2. `cacheDir/<model>/`, once a previous download completed;
 *   3. a download from `remoteHost` into `cacheDir` (when `allowRemote`), reported through `onProgress`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fork } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import type { FromWorker, OnnxDtype, ToWorker, WorkerInit } from './localMessages';
import {
  BULK_MIN_TEXTS,
  EmbeddingUnavailableError,
  type EmbedOptions,
  type EmbeddingProgress,
  type EmbeddingProvider,
} from './types';
import { chunk, inBatches } from './vectors';
import { childEnv } from '../shared/processEnv';
import { workerGone } from './runtimeFailure';

export type { OnnxDtype } from './localMessages';

/**
 * Default local model: multilingual (50+ languages incl. Chinese and English), 384 dimensions,
 * symmetric (no query/passage prefixes), ~118 MB as int8 ONNX. See docs/embeddings.md.
 */
export const DEFAULT_LOCAL_MODEL = 'Xenova/paraphrase-multilingual-MiniLM-L12-v2';

/** The English-only model that scripts/fetch-model.sh can install without the hub. */
export const ENGLISH_LOCAL_MODEL = 'Xenova/all-MiniLM-L6-v2';

export interface LocalEmbeddingOptions {
  /** Hugging Face model id with transformers.js ONNX weights. Default {@link DEFAULT_LOCAL_MODEL}. */
  model?: string;
  /**
   * Weights variant under `onnx/`. Default: `q8` (`model_quantized.onnx`) for downloads; for a local
   * folder, whatever it has (`q8` first, then `fp32`).
   */
  dtype?: OnnxDtype;
  /**
   * A folder with the model (config.json, tokenizer.json, tokenizer_config.json, onnx/*.onnx), or a
   * root that holds `<model>/` (the layout scripts/fetch-model.sh writes). When set, nothing is
   * downloaded. Default `$MNEMO_EMBEDDING_MODEL_PATH`, else unset.
   * When it is a model folder itself, the model id becomes its last two path segments (`org/name`),
   * so that collections are keyed by what is really loaded.
   */
  modelPath?: string;
  /** Where downloaded models are kept (the extension's global storage). Default `~/.cache/mnemo/models`. */
  cacheDir?: string;
  /** Hub or mirror base URL, e.g. `https://hf-mirror.com`. Default `https://huggingface.co/`. */
  remoteHost?: string;
  /** Whether the model may be downloaded on first use. Default true. */
  allowRemote?: boolean;
  /** Texts per inference call (not a bulk job). Default {@link LOCAL_DEFAULTS}.batchSize. */
  batchSize?: number;
  /**
   * ONNX Runtime intra-op threads. Default {@link defaultThreads}: half the logical CPUs, but two on a
   * 2-core machine. They sleep while there is nothing to embed (no spinning).
   */
  threads?: number;
  /**
   * Texts per inference call of a bulk job ({@link EmbedOptions.bulk}). Default `$MNEMO_EMBEDDING_BULK_BATCH`,
   * else {@link LOCAL_DEFAULTS}.bulkBatchSize.
   */
  bulkBatchSize?: number;
  /** Abort a download that sends nothing for this long, in ms. Default 30000. */
  stallTimeoutMs?: number;
  /**
   * The worker process's nice value (`process` transport only; a thread shares the sidecar's). Default
   * {@link LOCAL_DEFAULTS}.niceness; 0 leaves it as the sidecar's.
   */
  niceness?: number;
  /**
   * Where the worker runs: `process` (a forked Node child, default) or `thread` (worker_threads;
   * only one such worker can ever load onnxruntime-node in a process).
   */
  transport?: 'process' | 'thread';
  /** Download/load progress. */
  onProgress?: (p: EmbeddingProgress) => void;
  /**
   * Stop the worker (returning the model's ~290 MB) after this long without a request, in ms; the next
   * request loads it again (about a second). 0 keeps it loaded. Default `$MNEMO_EMBEDDING_IDLE_UNLOAD_MS`,
   * else {@link LOCAL_DEFAULTS}.idleUnloadMs. Always 0 for the `thread` transport (see above).
   */
  idleUnloadMs?: number;
  /** Receives the worker's console output, line by line. Default: written to stderr. */
  log?: (line: string) => void;
  /** Worker script; default {@link resolveEmbedWorkerPath}(). */
  workerPath?: string;
}

export const LOCAL_DEFAULTS = {
  model: DEFAULT_LOCAL_MODEL,
  remoteHost: 'https://huggingface.co/',
  allowRemote: true,
  /**
   * Texts per call of a question or a session (not a bulk job): 50 turns of a session (30-280 characters)
   * took 2.0 s p50 in batches of 32 and 1.0 s in batches of 1, 2 or 4 on 2 cores (docs/benchmarks.md,
   * "50-turn session ingest"); a question waits for at most one such batch.
   */
  batchSize: 4,
  /**
   * A question waits for at most one such batch of an import. ONNX Runtime's buffers for a batch are what
   * the worker grows by while it imports: batches of 16 peaked ~40 MB lower than 32 (2,000 memories,
   * `npm run bench -- --only bulk`), as fast within the noise (docs/benchmarks.md, "Bulk import's memory").
   */
  bulkBatchSize: 16,
  stallTimeoutMs: 30_000,
  /**
   * The embedding worker runs below normal priority. Learning from an import keeps the model busy on
   * every core, and the extension host, at normal priority, then waited up to 96 ms for a core while it
   * had 1-2 ms of work (bench/editor, "while the sidecar learns"). On an idle machine nice changes
   * nothing, so a question's embedding is as fast as before.
   */
  niceness: 10,
  /** 10 minutes: an agent session asks far more often; an idle editor gives the memory back. */
  idleUnloadMs: 600_000,
} as const;

/**
 * ONNX Runtime intra-op threads by default: half the logical CPUs, at least two where there are two. One
 * session serves questions and bulk jobs alike: a second session with more threads for bulk jobs only
 * cost 100-115 MB more RSS while it was loaded and left 55-75 MB behind after it was released (malloc
 * keeps the freed pages), measured on 2 cores; one 2-thread session was as large as one 1-thread session.
 */
export function defaultThreads(): number {
  const cpus = os.availableParallelism();
  return Math.min(cpus, Math.max(2, Math.floor(cpus / 2)));
}

/** Default download cache: `~/.cache/mnemo/models`. The extension passes its global storage instead. */
export function defaultCacheDir(): string {
  return path.join(os.homedir(), '.cache', 'mnemo', 'models');
}

/**
 * Path of the worker script. From source (`node --import tsx`) it is `localWorker.ts` next to this
 * file; from the bundle it is `embedWorker.js` next to `dist/sidecar.js` (a separate esbuild entry).
 * `$MNEMO_EMBED_WORKER_PATH` overrides both.
 */
export function resolveEmbedWorkerPath(): string {
  const override = process.env['MNEMO_EMBED_WORKER_PATH'];
  if (override) return path.resolve(override);
  if (/\.[cm]?ts$/.test(__filename)) return path.join(__dirname, 'localWorker.ts');
  return path.join(__dirname, 'embedWorker.js');
}

/** The running worker, whichever transport it uses. */
interface WorkerHandle {
  send(msg: ToWorker): void;
  onMessage(cb: (msg: FromWorker) => void): void;
  /** Called once when the worker is gone, with why (crash, exit code or signal). */
  onGone(cb: (why: string) => void): void;
  /** Process id of the worker (the sidecar's own for a thread). */
  readonly pid: number;
  stop(): Promise<void>;
}

const isTs = (file: string): boolean => /\.[cm]?ts$/.test(file);

/** A worker's end, told once (its first cause: an error and the exit that follows are one end). */
function goneSignal(): { emit(why: string): void; on(cb: (why: string) => void): void } {
  let told = false;
  const cbs: ((why: string) => void)[] = [];
  return {
    emit(why) {
      if (told) return;
      told = true;
      for (const cb of cbs) cb(why);
    },
    on: (cb) => void cbs.push(cb),
  };
}

/** Starts the worker; a `.ts` worker (source and tests) is run through tsx's CommonJS hook. */
function spawnWorker(
  file: string,
  transport: 'process' | 'thread',
  log: (line: string) => void,
): WorkerHandle {
  if (transport === 'thread') {
    const opts = { stdout: true, stderr: true } as const;
    const boot = `require('tsx/cjs/api').register(); require(${JSON.stringify(file)});`;
    const w = isTs(file) ? new Worker(boot, { ...opts, eval: true }) : new Worker(file, opts);
    pipeLines(w.stdout, log);
    pipeLines(w.stderr, log);
    const gone = goneSignal();
    w.on('error', (err) => gone.emit(`crashed: ${err.message}`));
    w.on('exit', (code) => gone.emit(`exited with code ${code}`));
    return {
      send: (msg) => w.postMessage(msg),
      onMessage: (cb) => w.on('message', cb),
      onGone: gone.on,
      pid: process.pid,
      stop: async () => {
        await w.terminate();
      },
    };
  }

  const tsxCjs = 'tsx/cjs'; // a variable, so that bundlers leave it alone
  const child = fork(file, [], {
    execArgv: isTs(file) ? ['--require', require.resolve(tsxCjs)] : [],
    serialization: 'advanced', // Float32Array crosses as is
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: childEnv(),
  });
  pipeLines(child.stdout, log);
  pipeLines(child.stderr, log);
  const gone = goneSignal();
  child.on('error', (err) => gone.emit(`could not start: ${err.message}`));
  child.on('exit', (code, signal) =>
    gone.emit(signal ? `was killed by ${signal}` : `exited with code ${code}`),
  );
  return {
    send: (msg) => {
      if (child.connected) child.send(msg);
    },
    onMessage: (cb) => child.on('message', cb as (m: unknown) => void),
    onGone: gone.on,
    pid: child.pid ?? -1,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 2000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

interface Pending {
  resolve: (v: number[][]) => void;
  reject: (e: Error) => void;
}

export class LocalEmbeddingProvider implements EmbeddingProvider {
  readonly modelId: string;
  /** Where the loaded weights came from; set once ready. */
  loadedFrom: { source: 'modelPath' | 'cache' | 'download'; dir: string; dtype: OnnxDtype } | undefined;

  private readonly init: WorkerInit;
  private readonly batchSize: number;
  private readonly bulkBatchSize: number;
  private readonly transport: 'process' | 'thread';
  private readonly onProgress: ((p: EmbeddingProgress) => void) | undefined;
  private readonly log: (line: string) => void;
  private readonly workerPath: string;
  private worker: WorkerHandle | undefined;
  private readying: Promise<void> | undefined;
  private dim = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly pendingStats = new Map<number, (s: { rss: number; pid: number }) => void>();
  private disposed = false;
  private readonly idleUnloadMs: number;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(opts: LocalEmbeddingOptions = {}) {
    const modelPath = opts.modelPath || process.env['MNEMO_EMBEDDING_MODEL_PATH'] || undefined;
    let model = opts.model || LOCAL_DEFAULTS.model;
    if (modelPath && fs.existsSync(path.join(modelPath, 'config.json'))) {
      // The folder is the model: name it after the folder, not after the setting.
      const abs = path.resolve(modelPath);
      model = `${path.basename(path.dirname(abs))}/${path.basename(abs)}`;
    }
    this.init = {
      model,
      dtype: opts.dtype,
      modelPath,
      cacheDir: path.resolve(opts.cacheDir || defaultCacheDir()),
      remoteHost: (opts.remoteHost || LOCAL_DEFAULTS.remoteHost).replace(/\/*$/, '/'),
      allowRemote: opts.allowRemote ?? LOCAL_DEFAULTS.allowRemote,
      threads: opts.threads ?? defaultThreads(),
      stallTimeoutMs: opts.stallTimeoutMs ?? LOCAL_DEFAULTS.stallTimeoutMs,
      niceness: opts.transport === 'thread' ? undefined : (opts.niceness ?? LOCAL_DEFAULTS.niceness),
    };
    this.modelId = `local:${model}`;
    this.batchSize = opts.batchSize ?? LOCAL_DEFAULTS.batchSize;
    this.bulkBatchSize = Math.max(
      1,
      opts.bulkBatchSize ?? envNumber('MNEMO_EMBEDDING_BULK_BATCH') ?? LOCAL_DEFAULTS.bulkBatchSize,
    );
    this.transport = opts.transport ?? 'process';
    this.onProgress = opts.onProgress;
    this.log = opts.log ?? ((line) => process.stderr.write(`[embed-worker] ${line}\n`));
    this.workerPath = opts.workerPath ?? resolveEmbedWorkerPath();
    // A worker thread cannot load onnxruntime-node a second time in one process: it stays loaded.
    this.idleUnloadMs =
      this.transport === 'thread'
        ? 0
        : (opts.idleUnloadMs ?? envNumber('MNEMO_EMBEDDING_IDLE_UNLOAD_MS') ?? LOCAL_DEFAULTS.idleUnloadMs);
  }

  dimension(): number {
    if (!this.dim) throw new Error(`dimension() of ${this.modelId} is unknown until ready() resolves`);
    return this.dim;
  }

  ready(): Promise<void> {
    if (this.disposed)
      return Promise.reject(new EmbeddingUnavailableError('The embedding provider was disposed.'));
    this.readying ??= this.start()
      .then(() => this.armIdleUnload())
      .catch((err: unknown) => {
        this.readying = undefined; // a later call retries (e.g. after the network came back)
        throw err;
      });
    return this.readying;
  }

  async embed(texts: string[], opts: EmbedOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    clearTimeout(this.idleTimer);
    try {
      await this.ready();
      if (!(opts.bulk ?? texts.length > BULK_MIN_TEXTS))
        return await inBatches(texts, this.batchSize, (batch) => this.run(batch, false));
      // A bulk job: shortest texts first, so that each batch pads to texts of about its own length; every
      // batch is sent at once (the worker runs questions between them); the vectors come back in order.
      const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
      const batches = chunk(order, this.bulkBatchSize);
      const results = await Promise.all(
        batches.map((idx) =>
          this.run(
            idx.map((i) => texts[i]!),
            true,
          ),
        ),
      );
      const out = new Array<number[]>(texts.length);
      batches.forEach((idx, j) => idx.forEach((i, k) => (out[i] = results[j]![k]!)));
      return out;
    } finally {
      this.armIdleUnload();
    }
  }

  /** Whether the model is loaded in a running worker now (it is unloaded after a quiet period). */
  get loaded(): boolean {
    return this.worker !== undefined && this.readying !== undefined;
  }

  /** After {@link idleUnloadMs} without a request, stops the worker; the next embed() starts a new one. */
  private armIdleUnload(): void {
    clearTimeout(this.idleTimer);
    if (!this.idleUnloadMs || this.disposed) return;
    this.idleTimer = setTimeout(() => {
      const w = this.worker;
      if (!w || this.pending.size > 0 || this.pendingStats.size > 0) return this.armIdleUnload();
      this.worker = undefined; // its exit is then not a crash (onGone ignores a worker no longer current)
      this.readying = undefined;
      this.log(`unloading the model after ${Math.round(this.idleUnloadMs / 1000)} s without a request`);
      void w.stop();
    }, this.idleUnloadMs);
    this.idleTimer.unref();
  }

  /** Resident memory of the worker's process (the sidecar's own for a thread), for benchmarks. */
  async workerMemory(): Promise<{ rss: number; pid: number }> {
    await this.ready();
    const worker = this.worker;
    if (!worker) throw new EmbeddingUnavailableError('The embedding worker is not running; try again.');
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pendingStats.set(id, resolve);
      worker.send({ type: 'stats', id });
    });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.idleTimer);
    this.failPending(new EmbeddingUnavailableError('The embedding provider was disposed.'));
    const w = this.worker;
    this.worker = undefined;
    this.readying = undefined;
    if (w) await w.stop();
  }

  private start(): Promise<void> {
    let worker: WorkerHandle;
    try {
      worker = spawnWorker(this.workerPath, this.transport, this.log);
    } catch (err) {
      return Promise.reject(
        new EmbeddingUnavailableError(
          `The embedding worker could not be started from "${this.workerPath}"; reinstall the extension.`,
          {
            cause: err,
          },
        ),
      );
    }
    this.worker = worker;

    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (err: EmbeddingUnavailableError): void => {
        if (this.worker === worker) this.worker = undefined;
        this.failPending(err);
        if (!settled) {
          settled = true;
          void worker.stop();
          reject(err);
        } else if (!this.disposed) {
          this.readying = undefined; // the next embed() starts a new worker
        }
      };
      worker.onMessage((msg) => {
        switch (msg.type) {
          case 'progress':
            this.onProgress?.({
              message: msg.message,
              ...(msg.percent !== undefined ? { percent: msg.percent } : {}),
            });
            break;
          case 'ready':
            this.dim = msg.dimension;
            this.loadedFrom = { source: msg.source, dir: msg.dir, dtype: msg.dtype };
            settled = true;
            resolve();
            break;
          case 'result': {
            const p = this.pending.get(msg.id);
            this.pending.delete(msg.id);
            p?.resolve(unflatten(msg.data, msg.dim));
            break;
          }
          case 'stats': {
            const cb = this.pendingStats.get(msg.id);
            this.pendingStats.delete(msg.id);
            cb?.({ rss: msg.rss, pid: msg.pid });
            break;
          }
          case 'error':
            if (msg.id === undefined) {
              if (msg.detail) this.log(msg.detail);
              fail(new EmbeddingUnavailableError(msg.message));
            } else {
              const p = this.pending.get(msg.id);
              this.pending.delete(msg.id);
              p?.reject(new EmbeddingUnavailableError(msg.message, { cause: msg.detail }));
            }
            break;
        }
      });
      worker.onGone((why) => {
        if (this.disposed || (settled && this.worker !== worker)) return;
        fail(new EmbeddingUnavailableError(workerGone(why)));
      });
      worker.send({ type: 'init', init: this.init });
    });
  }

  private run(texts: string[], bulk: boolean): Promise<number[][]> {
    const worker = this.worker;
    if (!worker)
      return Promise.reject(new EmbeddingUnavailableError('The embedding worker is not running; try again.'));
    const id = this.nextId++;
    return new Promise<number[][]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.send({ type: 'embed', id, texts, ...(bulk ? { bulk } : {}) });
    });
  }

  private failPending(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

/** A non-negative number from the environment, or undefined. */
function envNumber(name: string): number | undefined {
  const v = process.env[name];
  const n = v === undefined || v === '' ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function unflatten(data: Float32Array, dim: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < data.length; i += dim) out.push(Array.from(data.subarray(i, i + dim)));
  return out;
}

function pipeLines(stream: NodeJS.ReadableStream | null | undefined, log: (line: string) => void): void {
  if (!stream) return;
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunkText: string) => {
    buf += chunkText;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trimEnd();
      buf = buf.slice(nl + 1);
      if (line) log(line);
    }
  });
  stream.on('end', () => {
    if (buf.trim()) log(buf.trimEnd());
  });
}
