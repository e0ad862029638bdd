/**
 * The local provider with REAL all-MiniLM-L6-v2 weights (int8 ONNX), loaded from a folder:
 * `$MNEMO_TEST_MODEL_DIR` (default `<repo>/.cache/models`, filled by scripts/fetch-model.sh when
 * missing). Also the download path against a local HTTP mirror, and the loader's error paths.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  EmbeddingUnavailableError,
  LocalEmbeddingProvider,
  cosineDistance,
  createEmbeddingProvider,
  resolveEmbedWorkerPath,
  type EmbeddingProgress,
} from '../../sidecar/embed/index';
import { waitFor } from '../support/sidecarSession';

const REPO = path.resolve(__dirname, '..', '..');
const MODEL = 'Xenova/all-MiniLM-L6-v2';
const MODELS_ROOT = path.resolve(process.env['MNEMO_TEST_MODEL_DIR'] || path.join(REPO, '.cache', 'models'));
const MODEL_DIR = path.join(MODELS_ROOT, MODEL);

/** Makes sure the real weights are there, running scripts/fetch-model.sh once if not. */
function ensureModel(): void {
  const ok = (): boolean =>
    ['config.json', 'tokenizer.json', 'tokenizer_config.json'].every((f) =>
      fs.existsSync(path.join(MODEL_DIR, f)),
    ) &&
    (fs.existsSync(path.join(MODEL_DIR, 'onnx', 'model_quantized.onnx')) ||
      fs.existsSync(path.join(MODEL_DIR, 'onnx', 'model.onnx')));
  if (ok()) return;
  execFileSync('bash', [path.join(REPO, 'scripts', 'fetch-model.sh'), MODELS_ROOT], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  assert.ok(ok(), `scripts/fetch-model.sh did not produce ${MODEL_DIR}`);
}

/**
 * How far a text's vector may move with its batch neighbours: the q8 model quantizes activations with one
 * scale per call. Measured up to 0.016 (cosine distance) on these texts; the int8 model itself is ~0.01 from
 * float32.
 */
const MAX_BATCH_DRIFT = 0.03;
const quiet = (): void => {};
const tmpDirs: string[] = [];
function tmpDir(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `mnemo-embed-${prefix}-`));
  tmpDirs.push(d);
  return d;
}

/** Rejection that is an EmbeddingUnavailableError whose message matches every pattern. */
async function rejectsUnavailable(p: Promise<unknown>, ...patterns: RegExp[]): Promise<string> {
  let message = '';
  await assert.rejects(p, (err: unknown) => {
    assert.ok(
      err instanceof EmbeddingUnavailableError,
      `expected EmbeddingUnavailableError, got ${String(err)}`,
    );
    message = err.message;
    for (const re of patterns) assert.match(err.message, re);
    // One sentence: no line breaks, ends with a period.
    assert.doesNotMatch(err.message, /\n/);
    assert.match(err.message, /\.$/);
    return true;
  });
  return message;
}

before(() => {
  ensureModel();
  delete process.env['MNEMO_EMBEDDING_MODEL_PATH'];
});

after(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

void describe('local provider: semantics with real all-MiniLM-L6-v2', () => {
  const provider = new LocalEmbeddingProvider({
    model: MODEL,
    modelPath: MODELS_ROOT,
    allowRemote: false,
    log: quiet,
  });
  after(() => provider.dispose());

  const vim = 'I always use vim, never suggest nano';
  const paraphrases = [
    'I prefer vim; do not recommend nano to me',
    'I always use vim and never want nano suggested',
  ];
  const question = 'which editor should you use?';
  const unrelated = [
    'The staging database is reset every Monday at 6am',
    'Run integration tests with npm run test:sidecar before pushing',
    'Our team lunch is on Thursdays',
    'Never force-push to the main branch',
  ];

  void test('loads from the folder, 384 dimensions, unit-length vectors', async () => {
    await provider.ready();
    assert.equal(provider.modelId, `local:${MODEL}`);
    assert.equal(provider.dimension(), 384);
    assert.equal(provider.loadedFrom?.source, 'modelPath');
    assert.equal(provider.loadedFrom?.dir, MODEL_DIR);
    const [v] = await provider.embed([vim]);
    assert.equal(v!.length, 384);
    const norm = Math.sqrt(v!.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-4, `norm ${norm}`);
    assert.deepEqual(await provider.embed([]), []);
  });

  void test('the vim preference is closer to "which editor" than to unrelated memories', async () => {
    const [q, m, ...others] = await provider.embed([question, vim, ...unrelated]);
    const dVim = cosineDistance(q!, m!);
    for (const [i, o] of others.entries()) {
      const d = cosineDistance(q!, o);
      assert.ok(
        dVim < d - 0.2,
        `"${vim}" (${dVim.toFixed(3)}) should beat "${unrelated[i]}" (${d.toFixed(3)}) by 0.2`,
      );
    }
  });

  void test("reads a text as far as the model was trained to (256 pieces), not the tokenizer's 512", async () => {
    // Two texts that agree on their first ~300 word pieces (150 words of two pieces each) and differ only after them: at the trained
    // length they embed alike (what sentence-transformers gives), at 512 the tails would pull them apart.
    const head = Array.from({ length: 150 }, (_, i) => `word${i % 17}`).join(' ');
    const [a, b] = await provider.embed([
      `${head} the deploy goes out on Fridays after the freeze`,
      `${head} 我们周三下午发布，冻结期之后也不例外，除非另有通知`,
    ]);
    assert.ok(cosineDistance(a!, b!) < 1e-4, `distance ${cosineDistance(a!, b!)}`);
    const [c, d] = await provider.embed(['the deploy goes out on Fridays', '我们周三下午发布']);
    assert.ok(cosineDistance(c!, d!) > 0.1, 'the two tails alone differ');
  });

  void test('paraphrases of one preference are under cosine distance 0.15', async () => {
    const [m, ...ps] = await provider.embed([vim, ...paraphrases]);
    for (const [i, p] of ps.entries()) {
      const d = cosineDistance(m!, p);
      assert.ok(d < 0.15, `"${paraphrases[i]}" is at ${d.toFixed(3)}`);
    }
  });

  void test('unrelated memories are not under 0.15 (not even 0.5) from each other or the preference', async () => {
    const vs = await provider.embed([vim, ...unrelated]);
    for (let i = 0; i < vs.length; i++) {
      for (let j = i + 1; j < vs.length; j++) {
        const d = cosineDistance(vs[i]!, vs[j]!);
        assert.ok(d > 0.5, `pair ${i},${j} at ${d.toFixed(3)}`);
      }
    }
  });

  void test('batching: 70 texts (3 batches of 32) give the same vectors as one by one', async () => {
    const texts = Array.from(
      { length: 70 },
      (_, i) => `memory number ${i}: ${unrelated[i % unrelated.length]}`,
    );
    const all = await provider.embed(texts);
    assert.equal(all.length, 70);
    for (const i of [0, 33, 69]) {
      const [single] = await provider.embed([texts[i]!]);
      // The q8 model quantizes its activations per call (DynamicQuantizeLinear, one scale per batch), so a
      // text's batch neighbours move its vector a little — about as much as the int8 model differs from
      // float32 (cosine ~0.99). Each vector must still be its own text's: nearest to it, far from others.
      const d = cosineDistance(all[i]!, single!);
      assert.ok(d < MAX_BATCH_DRIFT, `text ${i} differs between batch and single by ${d}`);
      const nearest = all.reduce(
        (b, v, j) => (cosineDistance(v, single!) < cosineDistance(all[b]!, single!) ? j : b),
        0,
      );
      assert.equal(nearest, i, `text ${i}'s single vector is nearest to the batch's vector ${nearest}`);
    }
  });

  void test('the JSON-RPC thread stays responsive while a big batch is embedded', async () => {
    const texts = Array.from({ length: 256 }, (_, i) => `${vim} (${i}) ${unrelated[i % unrelated.length]}`);
    // What blocks this thread is the time it runs between two ticks, not the time between them: on a busy
    // machine the process waits for a core while idle too (an earlier wall-clock bound failed at 547 ms
    // beside two other test runs on 2 cores). The event loop's own active time per tick says which.
    let prev = performance.eventLoopUtilization();
    let maxActive = 0;
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      const cur = performance.eventLoopUtilization();
      maxActive = Math.max(maxActive, performance.eventLoopUtilization(cur, prev).active);
      maxGap = Math.max(maxGap, now - last);
      prev = cur;
      last = now;
    }, 5);
    const t0 = performance.now();
    await provider.embed(texts);
    const took = performance.now() - t0;
    clearInterval(timer);
    assert.ok(
      maxActive < 150,
      `the thread ran ${maxActive.toFixed(0)} ms without a break during a ${took.toFixed(0)} ms embed (longest gap ${maxGap.toFixed(0)} ms)`,
    );
  });
});

void describe('local provider: bulk jobs', () => {
  let p: LocalEmbeddingProvider;
  before(() => {
    ensureModel();
    p = new LocalEmbeddingProvider({
      model: MODEL,
      modelPath: MODELS_ROOT,
      allowRemote: false,
      threads: 2,
      bulkBatchSize: 16,
      idleUnloadMs: 0,
      log: quiet,
    });
  });
  after(() => p.dispose());

  const facts = [
    'Our team lunch is on Thursdays',
    'The staging database is reset every Monday at 6am, so never keep test fixtures there overnight',
    'vim',
    'Run integration tests with npm run test:sidecar before pushing; the editor tests need a display',
    'Never force-push to the main branch',
  ];
  /** Texts of very different lengths, so that sorting by length really reorders them. */
  const texts = (n: number): string[] =>
    Array.from({ length: n }, (_, i) => `${i}: ${facts.slice(0, 1 + (i % facts.length)).join('. ')}`);

  void test('a bulk job on two threads gives the vectors of one thread, in the order of its texts', async () => {
    const all = texts(90);
    const one = new LocalEmbeddingProvider({
      model: MODEL,
      modelPath: MODELS_ROOT,
      allowRemote: false,
      threads: 1,
      log: quiet,
    });
    let questionPath: number[][];
    try {
      questionPath = await one.embed(all, { bulk: false });
    } finally {
      await one.dispose();
    }
    const bulk = await p.embed(all, { bulk: true });
    assert.equal(bulk.length, all.length);
    const worst = Math.max(...all.map((_, i) => cosineDistance(questionPath[i]!, bulk[i]!)));
    // The q8 model quantizes activations per batch: other batch neighbours move a vector (see batching).
    assert.ok(worst < MAX_BATCH_DRIFT, `a bulk vector differs from the question path's by ${worst}`);
    // Each vector belongs to its own text, not to a neighbour of the sorted order.
    const [single] = await p.embed([all[41]!]);
    const ranked = bulk.map((v, i) => [cosineDistance(single!, v), i] as const).sort((a, b) => a[0] - b[0]);
    assert.equal(ranked[0]![1], 41, `the nearest bulk vector to text 41 is text ${ranked[0]![1]}'s`);
    assert.ok(cosineDistance(single!, bulk[41]!) < MAX_BATCH_DRIFT);
  });

  void test('a question asked during a bulk job is answered before the job ends', async () => {
    let bulkDone = false;
    const job = p.embed(texts(480), { bulk: true }).then((v) => {
      bulkDone = true;
      return v;
    });
    const [answer] = await p.embed(['which editor should you use?']);
    assert.equal(bulkDone, false, 'the question waited for the whole bulk job');
    assert.equal(answer!.length, 384);
    assert.equal((await job).length, 480);
  });
});

void describe('local provider: configuration', () => {
  void test('MNEMO_EMBEDDING_MODEL_PATH is used when modelPath is not set; a model folder names the model', async () => {
    process.env['MNEMO_EMBEDDING_MODEL_PATH'] = MODEL_DIR;
    try {
      const p = createEmbeddingProvider({
        model: 'Xenova/paraphrase-multilingual-MiniLM-L12-v2',
        allowRemote: false,
        log: quiet,
      });
      try {
        // The folder is all-MiniLM, so the id says so, whatever the model setting.
        assert.equal(p.modelId, `local:${MODEL}`);
        await p.ready();
        assert.equal(p.dimension(), 384);
      } finally {
        await p.dispose();
      }
    } finally {
      delete process.env['MNEMO_EMBEDDING_MODEL_PATH'];
    }
  });

  void test('dispose kills the worker process and later calls reject', async () => {
    const p = new LocalEmbeddingProvider({
      model: MODEL,
      modelPath: MODELS_ROOT,
      allowRemote: false,
      log: quiet,
    });
    const { pid } = await p.workerMemory();
    assert.notEqual(pid, process.pid, 'the default transport is a child process');
    assert.doesNotThrow(() => process.kill(pid, 0), 'the worker process is alive');
    await p.dispose();
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the worker process is gone after dispose');
    await rejectsUnavailable(p.embed(['x']), /disposed/);
  });

  void test('the worker and its ONNX threads run below normal priority, so learning leaves the editor a core, on two malloc arenas', async () => {
    const p = new LocalEmbeddingProvider({
      model: MODEL,
      modelPath: MODELS_ROOT,
      allowRemote: false,
      threads: 2,
      log: quiet,
    });
    try {
      await p.embed(['the model is loaded, its threads started']);
      const { pid } = await p.workerMemory();
      // Field 19 of /proc/<tid>/stat is the nice value; every thread of the worker, ONNX's included.
      const nice = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      const tids = fs.readdirSync(`/proc/${pid}/task`);
      assert.ok(tids.length > 2, 'the worker has threads');
      const values = tids.map((t) => nice(fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8')));
      const main = nice(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
      const want = Math.max(10, os.getPriority());
      assert.equal(main, want, `the worker process runs at nice ${want}`);
      // V8's own threads start before the worker can lower itself; ONNX Runtime's start after.
      assert.ok(
        values.filter((v) => v === want).length >= 3,
        `nice values of the worker's threads: ${values}`,
      );
      assert.ok(os.getPriority() < 10 || want === os.getPriority(), 'the sidecar keeps its own priority');
      // Fewer malloc arenas: ONNX Runtime's threads leave less memory behind (sidecar/shared/processEnv.ts).
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      assert.ok(
        env.includes(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}`),
        `the worker's malloc arenas: ${env.filter((e) => e.startsWith('MALLOC_')).join(' ') || 'unset'}`,
      );
    } finally {
      await p.dispose();
    }
  });

  void test('a killed worker is restarted by the next request', async () => {
    const p = new LocalEmbeddingProvider({
      model: MODEL,
      modelPath: MODELS_ROOT,
      allowRemote: false,
      log: quiet,
    });
    try {
      const { pid } = await p.workerMemory();
      const [before] = await p.embed(['I always use vim, never suggest nano']);
      process.kill(pid, 'SIGKILL');
      // The in-flight or next request may fail once; after that a new worker answers.
      const again = await p
        .embed(['I always use vim, never suggest nano'])
        .catch(() => p.embed(['I always use vim, never suggest nano']));
      assert.ok(cosineDistance(before!, again[0]!) < 1e-6);
      assert.notEqual((await p.workerMemory()).pid, pid);
    } finally {
      await p.dispose();
    }
  });

  void test('after a quiet period the model is unloaded (its process gone) and the next request loads it again', async () => {
    const p = new LocalEmbeddingProvider({
      model: MODEL,
      modelPath: MODELS_ROOT,
      allowRemote: false,
      idleUnloadMs: 300,
      log: quiet,
    });
    try {
      const [before] = await p.embed(['I always use vim, never suggest nano']);
      const { pid } = await p.workerMemory();
      await waitFor('the idle worker to exit', () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      });
      assert.equal(p.loaded, false);
      const [again] = await p.embed(['I always use vim, never suggest nano']);
      assert.ok(cosineDistance(before!, again!) < 1e-6, 'the reloaded model gives the same vector');
      assert.notEqual((await p.workerMemory()).pid, pid);
    } finally {
      await p.dispose();
    }
  });

  void test('the worker path points at localWorker.ts from source', () => {
    assert.equal(resolveEmbedWorkerPath(), path.join(REPO, 'sidecar', 'embed', 'localWorker.ts'));
  });
});

void describe('local provider: loader errors', () => {
  const make = (
    modelPath: string | undefined,
    extra: Partial<ConstructorParameters<typeof LocalEmbeddingProvider>[0]> = {},
  ) =>
    new LocalEmbeddingProvider({
      model: MODEL,
      allowRemote: false,
      cacheDir: tmpDir('cache'),
      log: quiet,
      ...(modelPath ? { modelPath } : {}),
      ...extra,
    });

  void test('missing folder', async () => {
    const p = make(path.join(os.tmpdir(), 'mnemo-no-such-folder-9f3a'));
    await rejectsUnavailable(p.ready(), /does not exist/, /mnemo\.embedding\.modelPath/);
    await p.dispose();
  });

  void test('wrong path: a folder without a model', async () => {
    const p = make(tmpDir('empty'));
    await rejectsUnavailable(p.ready(), /No embedding model in mnemo\.embedding\.modelPath/, /config\.json/);
    await p.dispose();
  });

  void test('model folder without ONNX weights', async () => {
    const dir = path.join(tmpDir('noonnx'), 'Xenova', 'all-MiniLM-L6-v2');
    fs.mkdirSync(dir, { recursive: true });
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
      fs.copyFileSync(path.join(MODEL_DIR, f), path.join(dir, f));
    const p = make(dir);
    await rejectsUnavailable(p.ready(), /has no onnx\/model_quantized\.onnx/);
    await p.dispose();
  });

  void test('corrupt ONNX file', async () => {
    const dir = path.join(tmpDir('corrupt'), 'Xenova', 'all-MiniLM-L6-v2');
    fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
      fs.copyFileSync(path.join(MODEL_DIR, f), path.join(dir, f));
    fs.writeFileSync(
      path.join(dir, 'onnx', 'model_quantized.onnx'),
      Buffer.from('this is not an onnx protobuf \x00\x01\x02'),
    );
    const p = make(path.dirname(path.dirname(dir)));
    await rejectsUnavailable(p.ready(), /could not be loaded/, /scripts\/fetch-model\.sh|modelPath/);
    await p.dispose();
  });

  void test('downloads off and nothing local', async () => {
    const p = make(undefined);
    await rejectsUnavailable(p.ready(), /not on this machine/, /mnemo\.embedding\.modelPath/);
    await p.dispose();
  });

  void test('hub unreachable (unresolvable host)', async () => {
    const p = make(undefined, { allowRemote: true, remoteHost: 'http://mnemo-no-such-host.invalid/' });
    await rejectsUnavailable(p.ready(), /Could not download the embedding model/, /remoteHost/);
    await p.dispose();
  });
});

/** A tiny hub mirror serving `<model>/resolve/main/<file>` from the fetched folder. */
async function startMirror(
  mode: 'ok' | 'stall' | '404',
): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (mode === 'stall') return; // never answers
    const m = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(decodeURIComponent(req.url ?? ''));
    const file = m && m[1] === MODEL ? path.join(MODEL_DIR, m[2]!) : '';
    if (mode === '404' || !file || !fs.existsSync(file)) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    res.writeHead(200, {
      'content-length': fs.statSync(file).size,
      'content-type': 'application/octet-stream',
    });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

void describe('local provider: first-use download from a mirror', () => {
  void test('downloads once with progress, then loads from the cache offline', async () => {
    const mirror = await startMirror('ok');
    const cacheDir = tmpDir('dl');
    const progress: EmbeddingProgress[] = [];
    try {
      const p = new LocalEmbeddingProvider({
        model: MODEL,
        cacheDir,
        remoteHost: mirror.url,
        log: quiet,
        onProgress: (e) => progress.push(e),
      });
      await p.ready();
      assert.equal(p.loadedFrom?.source, 'download');
      const [a] = await p.embed(['I always use vim, never suggest nano']);
      await p.dispose();
      assert.ok(
        mirror.requests.some((r) => r.endsWith('/onnx/model_quantized.onnx')),
        mirror.requests.join(' '),
      );
      assert.ok(
        progress.some((e) => e.message === 'Downloading onnx/model_quantized.onnx' && e.percent === 100),
        JSON.stringify(progress.slice(-3)),
      );
      assert.ok(fs.existsSync(path.join(cacheDir, MODEL, 'onnx', 'model_quantized.onnx')));

      const offline = new LocalEmbeddingProvider({ model: MODEL, cacheDir, allowRemote: false, log: quiet });
      await offline.ready();
      assert.equal(offline.loadedFrom?.source, 'cache');
      const [b] = await offline.embed(['I always use vim, never suggest nano']);
      await offline.dispose();
      assert.ok(cosineDistance(a!, b!) < 1e-6);
    } finally {
      await mirror.close();
    }
  });

  void test('an interrupted download in the cache is not trusted', async () => {
    const cacheDir = tmpDir('partial');
    fs.mkdirSync(path.join(cacheDir, MODEL, 'onnx'), { recursive: true });
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
      fs.copyFileSync(path.join(MODEL_DIR, f), path.join(cacheDir, MODEL, f));
    fs.writeFileSync(path.join(cacheDir, MODEL, 'onnx', 'model_quantized.onnx'), Buffer.alloc(1024));
    const p = new LocalEmbeddingProvider({ model: MODEL, cacheDir, allowRemote: false, log: quiet });
    await rejectsUnavailable(p.ready(), /not on this machine/);
    await p.dispose();
  });

  void test('a mirror without the model gives a clear message', async () => {
    const mirror = await startMirror('404');
    try {
      const p = new LocalEmbeddingProvider({
        model: MODEL,
        cacheDir: tmpDir('404'),
        remoteHost: mirror.url,
        log: quiet,
      });
      await rejectsUnavailable(p.ready(), /has no q8 ONNX weights|Could not download/, /mnemo\.embedding\./);
      await p.dispose();
    } finally {
      await mirror.close();
    }
  });

  void test('a stalled mirror times out', async () => {
    const mirror = await startMirror('stall');
    try {
      const p = new LocalEmbeddingProvider({
        model: MODEL,
        cacheDir: tmpDir('stall'),
        remoteHost: mirror.url,
        stallTimeoutMs: 300,
        log: quiet,
      });
      const t0 = Date.now();
      await rejectsUnavailable(p.ready(), /Could not download the embedding model/, /no data from/);
      assert.ok(Date.now() - t0 < 10_000);
      await p.dispose();
    } finally {
      await mirror.close();
    }
  });
});

void describe('local provider: worker_threads transport', () => {
  void test('runs in a thread of this process and is terminated on dispose', async () => {
    const p = new LocalEmbeddingProvider({
      model: MODEL,
      modelPath: MODELS_ROOT,
      allowRemote: false,
      transport: 'thread',
      log: quiet,
    });
    const { pid } = await p.workerMemory();
    assert.equal(pid, process.pid);
    const [q, m] = await p.embed(['which editor should you use?', 'I always use vim, never suggest nano']);
    assert.ok(cosineDistance(q!, m!) < 0.6);
    const handle = (p as unknown as { worker?: { stop(): Promise<void> } }).worker;
    assert.ok(handle);
    await p.dispose();
    assert.equal((p as unknown as { worker?: unknown }).worker, undefined);
  });

  void test('a second thread cannot load onnxruntime-node in the same process, and says so', async () => {
    const p = new LocalEmbeddingProvider({
      model: MODEL,
      modelPath: MODELS_ROOT,
      allowRemote: false,
      transport: 'thread',
      log: quiet,
    });
    await rejectsUnavailable(p.ready(), /only one worker thread per process/, /process transport/);
    await p.dispose();
  });
});
