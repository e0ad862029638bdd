/**
 * The embedding worker: loads a transformers.js feature-extraction pipeline and answers `embed`
 * messages, so the JSON-RPC thread never blocks on ONNX Runtime. It runs either as a child process
 * (`fork`, the default) or as a worker thread; the messages are the same (localMessages.ts).
 *
 * Bundled on its own as `dist/embedWorker.js`; run from source through tsx (see local.ts).
 * Nothing here writes to stdout (the parent captures it anyway: the sidecar speaks JSON-RPC on stdio).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parentPort } from 'node:worker_threads';
import {
  DTYPE_SUFFIX,
  type FromWorker,
  type OnnxDtype,
  type ToWorker,
  type WorkerInit,
} from './localMessages';
import { cutText } from '../shared/text';
import { lowerPriority } from '../util/process';
import { downloadFailure } from './downloadFailure';
import { runtimeLoadFailure } from './runtimeFailure';
import { capSequenceLength, trainedMaxTokens } from './sequenceLength';

/** transformers.js is ESM+CJS; a dynamic import lets a failure to load it become a clear message. */
const importTransformers = () => import('@huggingface/transformers');
type Transformers = Awaited<ReturnType<typeof importTransformers>>;
type Extractor = Awaited<ReturnType<Transformers['pipeline']>>;

/** Marker written into a cached model folder once a download loaded successfully. */
const COMPLETE_MARKER = '.mnemo-complete';
const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

/** A failure whose message is already one sentence for a person. */
class UserFacingError extends Error {}

interface Plan {
  source: 'modelPath' | 'cache' | 'download';
  /** `env.localModelPath` for local loads; the cache dir for downloads. */
  root: string;
  /** Id relative to `root` (and the hub id for downloads). */
  id: string;
  dtype: OnnxDtype;
}

/** The parent: a worker thread's port, or the IPC channel of a forked process. */
const channel = ((): {
  send: (msg: FromWorker, transfer?: ArrayBuffer[]) => void;
  onMessage: (cb: (msg: ToWorker) => void) => void;
} => {
  const port = parentPort;
  if (port)
    return {
      send: (msg, transfer) => port.postMessage(msg, transfer),
      onMessage: (cb) => port.on('message', cb),
    };
  const send = process.send?.bind(process);
  if (!send) throw new Error('localWorker must run as a worker thread or a forked child process');
  // Never outlive the sidecar: a closed IPC channel means the parent is gone.
  process.on('disconnect', () => process.exit(0));
  return {
    send: (msg) => void send(msg),
    onMessage: (cb) => process.on('message', cb as (m: unknown) => void),
  };
})();

let init: WorkerInit;

function post(msg: FromWorker, transfer?: ArrayBuffer[]): void {
  channel.send(msg, transfer);
}

function firstLine(err: unknown): string {
  let msg = err instanceof Error ? err.message : String(err);
  // fetch's own message is just "fetch failed"; the useful part (ENOTFOUND, ECONNREFUSED...) is a cause.
  for (
    let c: unknown = err instanceof Error ? err.cause : undefined, i = 0;
    c instanceof Error && i < 3;
    c = c.cause, i++
  ) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string') {
      msg = `${msg}: ${code}`;
      break;
    }
  }
  const line = msg.split('\n').find((l) => l.trim()) ?? msg;
  return line.length > 160 ? `${cutText(line, 157)}...` : line.trim();
}

function isModelDir(dir: string): boolean {
  return REQUIRED_FILES.every((f) => fs.existsSync(path.join(dir, f)));
}

/** The dtype to load from `dir`: the requested one if its file exists, else q8, else fp32. */
function pickDtype(dir: string): OnnxDtype | undefined {
  const has = (d: OnnxDtype): boolean =>
    fs.existsSync(path.join(dir, 'onnx', `model${DTYPE_SUFFIX[d]}.onnx`));
  if (init.dtype) return has(init.dtype) ? init.dtype : undefined;
  if (has('q8')) return 'q8';
  if (has('fp32')) return 'fp32';
  return undefined;
}

function onnxName(dtype: OnnxDtype | undefined): string {
  return dtype ? `onnx/model${DTYPE_SUFFIX[dtype]}.onnx` : 'onnx/model_quantized.onnx (or onnx/model.onnx)';
}

/** Decides where the weights come from, or throws a UserFacingError saying what to do. */
function plan(): Plan {
  if (init.modelPath) {
    const p = path.resolve(init.modelPath);
    if (!fs.existsSync(p)) {
      throw new UserFacingError(
        `mnemo.embedding.modelPath "${p}" does not exist; point it at a folder that holds ${init.model} (scripts/fetch-model.sh makes one) or clear it to download the model.`,
      );
    }
    const candidates = isModelDir(p) ? [p] : [path.join(p, init.model)];
    for (const dir of candidates) {
      if (!isModelDir(dir)) continue;
      const dtype = pickDtype(dir);
      if (!dtype) {
        throw new UserFacingError(
          `The model folder "${dir}" has no ${onnxName(init.dtype)}; add the ONNX weights (scripts/fetch-model.sh) or change mnemo.embedding.modelPath.`,
        );
      }
      return { source: 'modelPath', root: path.dirname(dir), id: path.basename(dir), dtype };
    }
    throw new UserFacingError(
      `No embedding model in mnemo.embedding.modelPath "${p}": expected config.json, tokenizer.json, tokenizer_config.json and ${onnxName(init.dtype)} there or in "${path.join(p, init.model)}".`,
    );
  }

  const cached = path.join(init.cacheDir, init.model);
  if (fs.existsSync(path.join(cached, COMPLETE_MARKER)) && isModelDir(cached)) {
    const dtype = pickDtype(cached);
    if (dtype) return { source: 'cache', root: init.cacheDir, id: init.model, dtype };
  }
  if (!init.allowRemote) {
    throw new UserFacingError(
      `The embedding model ${init.model} is not on this machine and downloads are off; set mnemo.embedding.modelPath to a folder that holds it (scripts/fetch-model.sh makes one) or turn on mnemo.embedding.allowRemote.`,
    );
  }
  // A folder without the marker is an interrupted download: start it again from scratch.
  fs.rmSync(cached, { recursive: true, force: true });
  return { source: 'download', root: init.cacheDir, id: init.model, dtype: init.dtype ?? 'q8' };
}

/**
 * transformers.js downloads with the global fetch and no timeout. Abort when the server sends no
 * headers, or no body bytes, for `ms` (a stalled mirror must not hang `ready()` forever).
 */
function installStallTimeout(ms: number): void {
  const original = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, initArg?: RequestInit): Promise<Response> => {
    const controller = new AbortController();
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const stall = (): void => controller.abort(new Error(`no data from ${url} for ${ms} ms`));
    let timer = setTimeout(stall, ms);
    let res: Response;
    try {
      res = await original(input, { ...initArg, signal: controller.signal });
    } catch (err) {
      clearTimeout(timer);
      throw controller.signal.aborted ? controller.signal.reason : err;
    }
    if (!res.body) {
      clearTimeout(timer);
      return res;
    }
    const rearm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(stall, ms);
    };
    rearm();
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          rearm();
          ctl.enqueue(chunk);
        },
        flush() {
          clearTimeout(timer);
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** Forwards download progress, at most once per whole percent per file. */
function downloadProgress(): (data: unknown) => void {
  const last = new Map<string, number>();
  return (data: unknown) => {
    const d = data as { status?: string; file?: string; progress?: number };
    if (d.status !== 'progress' || !d.file) return;
    const percent = Math.floor(d.progress ?? 0);
    if (last.get(d.file) === percent) return;
    last.set(d.file, percent);
    post({ type: 'progress', message: `Downloading ${d.file}`, percent });
  };
}

function loadError(p: Plan, err: unknown): UserFacingError {
  const dir = path.join(p.root, p.id);
  const cause = firstLine(err);
  if (p.source === 'download') {
    const host = init.remoteHost;
    const kind = downloadFailure(cause);
    if (kind === 'missing') {
      return new UserFacingError(
        `${host} has no ${p.dtype} ONNX weights for ${p.id} (${cause}); check mnemo.embedding.model and mnemo.embedding.remoteHost.`,
      );
    }
    if (kind === 'unreachable') {
      return new UserFacingError(
        `Could not download the embedding model ${p.id} from ${host} (${cause}); check the network or mnemo.embedding.remoteHost (a mirror such as https://hf-mirror.com works), or set mnemo.embedding.modelPath to a local copy.`,
      );
    }
  }
  const fix =
    p.source === 'cache'
      ? `delete "${dir}" so that it is downloaded again`
      : p.source === 'download'
        ? 'try again, or set mnemo.embedding.modelPath to a local copy'
        : 'replace its files (scripts/fetch-model.sh) or change mnemo.embedding.modelPath';
  return new UserFacingError(`The embedding model in "${dir}" could not be loaded (${cause}); ${fix}.`);
}

interface Loaded {
  extractor: Extractor;
  plan: Plan;
  dimension: number;
}

async function load(): Promise<Loaded> {
  const p = plan();
  let tf: Transformers;
  try {
    tf = await importTransformers();
  } catch (err) {
    const cause = firstLine(err);
    throw new UserFacingError(runtimeLoadFailure(cause));
  }
  const env = tf.env;
  env.allowLocalModels = p.source !== 'download';
  env.allowRemoteModels = p.source === 'download';
  env.localModelPath = p.root;
  env.useFSCache = true;
  env.cacheDir = init.cacheDir;
  env.remoteHost = init.remoteHost;
  if (p.source === 'download') {
    installStallTimeout(init.stallTimeoutMs);
    post({ type: 'progress', message: `Downloading ${p.id} from ${init.remoteHost}`, percent: 0 });
  } else {
    post({ type: 'progress', message: `Loading ${p.id}` });
  }

  let extractor: Extractor;
  let dimension: number;
  try {
    extractor = await createExtractor(p, tf);
    // Truncate where the model was trained to stop, not at the tokenizer's larger limit (sequenceLength.ts).
    capSequenceLength(
      (extractor as { tokenizer?: { model_max_length?: number } }).tokenizer,
      trainedMaxTokens(p.id, path.join(p.root, p.id)),
    );
    const probe = await (extractor as FeatureExtractor)(['dimension probe'], {
      pooling: 'mean',
      normalize: true,
    });
    dimension = probe.dims[1]!;
  } catch (err) {
    throw loadError(p, err);
  }
  if (p.source === 'download') {
    fs.writeFileSync(
      path.join(init.cacheDir, p.id, COMPLETE_MARKER),
      `${new Date().toISOString()} ${p.dtype}\n`,
    );
  }
  return { extractor, plan: p, dimension };
}

/** A feature-extraction pipeline (one ONNX session) over the planned weights. */
function createExtractor(p: Plan, tf: Transformers): Promise<Extractor> {
  const threads = init.threads;
  return tf.pipeline('feature-extraction', p.id, {
    dtype: p.dtype,
    device: 'cpu',
    // Reading local files is quick: the one "Loading" message above is enough.
    ...(p.source === 'download' ? { progress_callback: downloadProgress() } : {}),
    // No CPU memory arena: ONNX Runtime's arena keeps the peak of every batch size it has seen, which held
    // 55-75 MB more resident after a few batches (332-353 MB against 275-278 MB here, measured with this
    // model on 2 cores) for an 8% faster bulk embedding; question embeddings are as fast without it.
    // No memory pattern either: ONNX Runtime plans and keeps a block per input shape it has seen, so a bulk
    // job's batches of every length grew the worker by 68-80 MB over idle against 25-35 MB without (1,000
    // texts in batches of 32), at the same speed within the noise (docs/benchmarks.md).
    session_options: {
      enableCpuMemArena: false,
      enableMemPattern: false,
      ...(threads ? { intraOpNumThreads: threads } : {}),
      // Threads that wait for work sleep instead of spinning: on cores shared with the editor, Chroma and the
      // sidecar, spinning threads took the cores from them (a bulk embedding on 2 threads of a loaded 2-core
      // machine ran at 11-12 texts/s spinning, 23 without).
      ...(threads && threads > 1 ? { extra: { session: { intra_op: { allow_spinning: '0' } } } } : {}),
    },
  });
}

/** The call shape of a feature-extraction pipeline that we use. */
type FeatureExtractor = (
  texts: string[],
  opts: { pooling: 'mean'; normalize: boolean },
) => Promise<{ dims: number[]; data: ArrayLike<number> }>;

let loaded: Promise<Loaded> | undefined;

interface Job {
  id: number;
  texts: string[];
  bulk: boolean;
}
/**
 * One inference at a time (ONNX Runtime's run blocks this thread), questions first: a request without
 * `bulk` (a recall's query) waits at most for the one bulk batch that is running, not for the import's
 * queued batches.
 */
const waiting = { interactive: [] as Job[], bulk: [] as Job[] };
let running = false;

function pump(): void {
  if (running) return;
  const job = waiting.interactive.shift() ?? waiting.bulk.shift();
  if (!job) return;
  running = true;
  void runJob(job).finally(() => {
    running = false;
    // After the messages that arrived during the run are read: a question sent meanwhile goes next.
    setImmediate(pump);
  });
}

async function runJob(job: Job): Promise<void> {
  try {
    if (!loaded) throw new Error('embed before init');
    const { extractor } = await loaded;
    const t = await (extractor as FeatureExtractor)(job.texts, { pooling: 'mean', normalize: true });
    const data = Float32Array.from(t.data);
    post({ type: 'result', id: job.id, dim: t.dims[1]!, data }, [data.buffer]);
  } catch (err) {
    post({
      type: 'error',
      id: job.id,
      message: `Embedding ${job.texts.length} texts failed (${firstLine(err)}).`,
      detail: err instanceof Error ? err.stack : String(err),
    });
  }
}

channel.onMessage((msg: ToWorker) => {
  switch (msg.type) {
    case 'init':
      if (loaded) return;
      init = msg.init;
      // Below normal priority before ONNX Runtime starts its threads, which inherit it (a forked worker
      // only: a thread's nice value would be the sidecar's own).
      if (init.niceness && !parentPort) lowerPriority(init.niceness);
      loaded = load();
      loaded.then(
        ({ plan: p, dimension }) =>
          post({ type: 'ready', dimension, source: p.source, dir: path.join(p.root, p.id), dtype: p.dtype }),
        (err: unknown) =>
          post({
            type: 'error',
            ...(err instanceof UserFacingError
              ? { message: err.message }
              : {
                  message: `The embedding model could not be loaded (${firstLine(err)}).`,
                  detail: err instanceof Error ? err.stack : String(err),
                }),
          }),
      );
      return;
    case 'stats':
      post({
        type: 'stats',
        id: msg.id,
        rss: process.memoryUsage().rss,
        pid: process.pid,
      });
      return;
    case 'embed':
      (msg.bulk ? waiting.bulk : waiting.interactive).push({
        id: msg.id,
        texts: msg.texts,
        bulk: !!msg.bulk,
      });
      pump();
      return;
  }
});
