/**
 * The benchmark suite (`npm run bench`, not part of the tests): ingest, bulk import, recall, footprint and
 * responsiveness against the real sidecar (dist/sidecar.js over JSON-RPC), its real Chroma server and the
 * real all-MiniLM-L6-v2 model (scripts/fetch-model.sh), with deterministic realistic input
 * (bench/lib/generate.ts). Prints a table with every target's PASS/MISS and writes
 * bench/results/<UTC date>.json with the machine's description. docs/benchmarks.md explains the numbers.
 *
 *   npm run bench                        # everything (~15-25 min on 2 cores)
 *   npm run bench -- --quick             # recall at 1k/10k only, fewer sessions, 2k bulk import
 *   npm run bench -- --only recall,ingest   # sections: ingest, bulk, recall, footprint, editor, capture
 *   npm run bench -- --only bulk --bulk 10000   # the bulk import alone (ingest = sessions + bulk), 10k memories
 *
 * Data lives in a temp folder that is removed at the end; every server listens on 127.0.0.1. Recall at
 * 100k stores composed vectors (normalized mixtures of real embeddings; see seedCorpus) because embedding
 * 100k texts with the real model would take ~12 min here; queries always use the real model.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ChromaClient, type Collection, type Where } from 'chromadb';
import { resolveConfig } from '../sidecar/config';
import {
  createEmbeddingProvider,
  LocalEmbeddingProvider,
  l2normalize,
  type EmbeddingProvider,
} from '../sidecar/embed/index';
import { memoryId, type Episode, type Memory, type MemoryStatus, type SourceType } from '../sidecar/model';
import { redactText } from '../sidecar/pipeline/redact';
import {
  BulkImportRequest,
  IngestRequest,
  ProgressNotification,
  RecallRequest,
  type IngestReport,
} from '../sidecar/protocol';
import { guessCategory, MnemoService } from '../sidecar/service';
import { LexicalIndex } from '../sidecar/store/lexical/lexical';
import { LOADED } from '../sidecar/store/lexical/postingsMirror';
import { episodeCollectionFor, episodeLexicalDoc, episodeMetadata } from '../sidecar/store/episodeStore';
import { buildWhere } from '../sidecar/store/where';
import { memoryLexicalDoc, toMetadata } from '../sidecar/store/memoryCodec';
import { socketClient, type SocketClient } from '../sidecar/store/socketFetch';
import {
  cleanupDataDir,
  SidecarSession,
  TEST_MODEL,
  testConfig,
  testModelPath,
} from '../test/support/sidecarSession';
import { memoryTexts, prng, QUERIES, session } from './lib/generate';
import { timeMethod, type Span } from './lib/timing';
import { benchCapture } from './capture';

const REPO = path.resolve(__dirname, '..');

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
    recall: { type: 'string' },
    bulk: { type: 'string' },
  },
});
const SECTIONS = ['ingest', 'bulk', 'recall', 'footprint', 'editor', 'capture'] as const;
type Section = (typeof SECTIONS)[number];
const only = new Set(
  (args.only ?? SECTIONS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
for (const s of only)
  if (!SECTIONS.includes(s as Section))
    throw new Error(`Unknown section "${s}"; use ${SECTIONS.join(', ')}.`);
const QUICK = args.quick;
const PROJECT = 'bench-project';
const RECALLABLE: MemoryStatus[] = ['active', 'confirmed'];

const P = {
  sessions: QUICK ? 6 : 20,
  turns: 50,
  bulk: args.bulk ? Number(args.bulk) : QUICK ? 2000 : 10_000,
  recallScenarios: parseScenarios(
    args.recall ??
      (QUICK ? '1k,10k,10k@30,10k@5,10k+100k' : '1k,10k,10k@30,10k@5,10k+100k,100k,100k@30,100k@5'),
  ),
  pool: 10_000,
  recallRuns: QUICK ? 100 : 200,
  coldStarts: QUICK ? 1 : 3,
  editorSessions: 200,
  editorMessagesPerSession: 50,
  editorLearnSeconds: QUICK ? 60 : 180,
};

// ------------------------------------------------------------------ helpers

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
const r1 = (x: number): number => Math.round(x * 10) / 10;
const r2 = (x: number): number => Math.round(x * 100) / 100;
interface Dist {
  p50: number;
  p95: number;
  mean: number;
  max: number;
  n: number;
}
function dist(xs: number[]): Dist {
  const s = [...xs].sort((a, b) => a - b);
  return {
    p50: r2(percentile(s, 50)),
    p95: r2(percentile(s, 95)),
    mean: r2(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)),
    max: r2(s[s.length - 1] ?? 0),
    n: s.length,
  };
}
const log = (line: string): void => console.log(`[bench] ${line}`);

/** VmRSS of a process in MB (0 when it is gone). */
function rssMb(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? r1(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** Direct children of a pid (from /proc/<pid>/stat). */
function childrenOf(pid: number): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid)
        out.push({ pid: Number(d), cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      // gone
    }
  }
  return out;
}

/** CPU time (utime + stime, in clock ticks) of a pid. */
function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

interface Pids {
  sidecar: number;
  chroma: number;
  worker?: number;
}
function pidsOf(s: SidecarSession): Pids {
  const sidecar = s.proc.pid!;
  const worker = childrenOf(sidecar).find((c) => /embedWorker/.test(c.cmd))?.pid;
  return { sidecar, chroma: s.chromaPid(), worker };
}
interface Rss {
  sidecar: number;
  worker: number;
  sidecar_plus_worker: number;
  chroma: number;
  /** Sidecar + embedding worker + Chroma. */
  all: number;
}
function rssOf(p: Pids): Rss {
  const sidecar = rssMb(p.sidecar);
  const worker = rssMb(p.worker);
  const chroma = rssMb(p.chroma);
  return {
    sidecar,
    worker,
    sidecar_plus_worker: r1(sidecar + worker),
    chroma,
    all: r1(sidecar + worker + chroma),
  };
}

/** CPU seconds each process spent between `rssSampler` and its `stop`. */
interface CpuSeconds {
  sidecar: number;
  worker: number;
  chroma: number;
}

/** Samples RSS every 100 ms and keeps the peaks; `cpu` is each process's CPU time over the same span. */
function rssSampler(p: Pids): { stop(): Rss & { cpu: CpuSeconds } } {
  const peak: Rss = { sidecar: 0, worker: 0, sidecar_plus_worker: 0, chroma: 0, all: 0 };
  const ticks = () => ({
    sidecar: cpuTicks(p.sidecar),
    worker: p.worker ? cpuTicks(p.worker) : 0,
    chroma: cpuTicks(p.chroma),
  });
  const t0 = ticks();
  const sample = () => {
    const r = rssOf(p);
    for (const k of Object.keys(peak) as (keyof Rss)[]) peak[k] = Math.max(peak[k], r[k]);
  };
  sample();
  const t = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(t);
      sample();
      const t1 = ticks();
      const sec = (k: keyof CpuSeconds) => r1((t1[k] - t0[k]) / 100);
      return { ...peak, cpu: { sidecar: sec('sidecar'), worker: sec('worker'), chroma: sec('chroma') } };
    },
  };
}

/** Waits until the processes use under 10% of a CPU over 500 ms (background work such as decay is done). */
async function settle(pids: number[], timeoutMs = 120_000): Promise<void> {
  const hz = 100;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const a = pids.reduce((n, p) => n + cpuTicks(p), 0);
    await new Promise((r) => setTimeout(r, 500));
    const b = pids.reduce((n, p) => n + cpuTicks(p), 0);
    if ((b - a) / hz / 0.5 < 0.1) return;
  }
}

const dataDirs: string[] = [];
let TMP = '';
function freshDataDir(name: string): string {
  const d = path.join(TMP, name);
  mkdirSync(d, { recursive: true });
  dataDirs.push(d);
  return d;
}

async function startSidecar(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ s: SidecarSession; startedAt: number; readyMs: number }> {
  const startedAt = performance.now();
  const s = await SidecarSession.start(testConfig(dataDir), env);
  // Ready = the first recall that succeeds (it waits for Chroma and the model).
  await s.waitFor(
    'the sidecar to answer a recall',
    () =>
      s
        .request(RecallRequest, { query: 'ready?', project_ids: ['bench-none'], mark_used: false })
        .then(() => true),
    120_000,
  );
  return { s, startedAt, readyMs: performance.now() - startedAt };
}

function newestMtime(dir: string): number {
  let t = 0;
  for (const f of readdirSync(dir, { recursive: true }).map(String)) {
    if (/\.(ts|json)$/.test(f)) t = Math.max(t, statSync(path.join(dir, f)).mtimeMs);
  }
  return t;
}

/** Rebuilds dist/ when a source is newer than the bundles (the bench runs the built sidecar and extension). */
function ensureBuild(): void {
  const bundles = ['sidecar.js', 'extension.js', 'embedWorker.js', 'lexicalWorker.js'].map((f) =>
    path.join(REPO, 'dist', f),
  );
  const built = Math.min(...bundles.map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)));
  const src = Math.max(
    newestMtime(path.join(REPO, 'sidecar')),
    newestMtime(path.join(REPO, 'src')),
    statSync(path.join(REPO, 'package.json')).mtimeMs,
  );
  if (built >= src) return;
  log('dist/ is older than the sources: npm run build');
  execFileSync(process.execPath, [path.join(REPO, 'esbuild.mjs')], { cwd: REPO, stdio: 'inherit' });
}

function machine(): Record<string, unknown> {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memory_gb: r1(os.totalmem() / 1024 ** 3),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

// ------------------------------------------------------------------ targets

interface Target {
  metric: string;
  value: number | undefined;
  unit: string;
  target: string;
  ok: boolean | undefined;
}
const targets: Target[] = [];
function target(
  metric: string,
  value: number | undefined,
  unit: string,
  op: '<=' | '>=' | '<',
  limit: number,
): void {
  const ok =
    value === undefined
      ? undefined
      : op === '<='
        ? value <= limit
        : op === '>='
          ? value >= limit
          : value < limit;
  targets.push({ metric, value, unit, target: `${op} ${limit} ${unit}`, ok });
}

// ------------------------------------------------------------------ ingest + bulk import

async function benchIngest(out: Record<string, unknown>, loadRss: Record<string, Rss>): Promise<void> {
  if (only.has('ingest')) await benchSessions(out, loadRss);
  await benchBulk(out, loadRss);
}

async function benchSessions(out: Record<string, unknown>, loadRss: Record<string, Rss>): Promise<void> {
  log(`ingest: ${P.sessions} sessions of ${P.turns} turns through mnemo/ingest/session`);
  const { s } = await startSidecar(freshDataDir('ingest'));
  try {
    const pids = pidsOf(s);
    await settle([pids.sidecar, pids.chroma]);
    const r = prng(2026);
    await s.request(IngestRequest, { ...session(r, P.turns, PROJECT, -1), explain: false }); // warm-up (secretlint, jieba, en-pos)
    const sampler = rssSampler(pids);
    const lat: number[] = [];
    const totals = { stored: 0, refreshed: 0, pending: 0, dropped: 0 };
    for (let i = 0; i < P.sessions; i++) {
      const t0 = performance.now();
      const rep: IngestReport = await s.request(IngestRequest, {
        ...session(r, P.turns, PROJECT, i),
        explain: false,
      });
      lat.push(performance.now() - t0);
      for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += rep[k];
    }
    loadRss.ingest_sessions = sampler.stop();
    const d = dist(lat);
    out.session_50_turns = { ...d, outcomes: totals };
    log(`  50-turn session p50 ${d.p50} ms, p95 ${d.p95} ms (${JSON.stringify(totals)})`);
    target('50-turn session ingest p95', d.p95, 'ms', '<=', 1500);
  } finally {
    await s.stop();
  }
}

/**
 * The bulk import, with a recall every 100 ms beside it (an agent asking while the user imports): its
 * latency says whether questions wait behind the import's embedding batches.
 */
async function benchBulk(out: Record<string, unknown>, loadRss: Record<string, Rss>): Promise<void> {
  log(`bulk import: ${P.bulk} memories through mnemo/memory/import, a recall every 100 ms beside it`);
  const b = await startSidecar(freshDataDir('bulk'));
  try {
    const pids = pidsOf(b.s);
    await settle([pids.sidecar, pids.chroma]);
    const texts = memoryTexts(P.bulk, 99);
    const memories = texts.map((text) => ({ text, project_id: PROJECT }));
    let last = 0;
    b.s.conn.onNotification(ProgressNotification, (p) => {
      if (p.token === 'bulk' && (p.percent ?? 0) >= last + 25) {
        last = p.percent ?? 0;
        log(`  ${p.message}`);
      }
    });
    const sampler = rssSampler(pids);
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const t0 = performance.now();
    const importing = b.s.request(BulkImportRequest, { memories, progress_token: 'bulk' });
    let done = false;
    const recallMs: number[] = [];
    const probes = (async () => {
      for (let i = 0; !done; i++) {
        const q0 = performance.now();
        await b.s.request(RecallRequest, {
          query: QUERIES[i % QUERIES.length]!,
          project_ids: [PROJECT],
          mark_used: false,
        });
        if (!done) recallMs.push(performance.now() - q0);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const res = await importing.finally(() => (done = true));
    const sec = (performance.now() - t0) / 1000;
    await probes;
    lag.disable();
    loadRss.bulk_import = sampler.stop();
    const during = dist(recallMs);
    const perSec = r1(P.bulk / sec);
    out.bulk_import = {
      memories: P.bulk,
      seconds: r2(sec),
      memories_per_s: perSec,
      result: res,
      recall_during_import_ms: during,
      client_event_loop_lag_ms: {
        p50: r2(lag.percentile(50) / 1e6),
        p99: r2(lag.percentile(99) / 1e6),
        max: r2(lag.max / 1e6),
      },
    };
    log(`  ${perSec} memories/s (${JSON.stringify(res)})`);
    log(
      `  recall during the import: p50 ${during.p50} ms, p95 ${during.p95} ms, max ${during.max} ms (${during.n})`,
    );
    target(`bulk import throughput (${P.bulk})`, perSec, 'memories/s', '>=', 200);
  } finally {
    await b.s.stop();
  }
}

// ------------------------------------------------------------------ recall

/**
 * The first 12 hex digits of the test model's ONNX file's sha256: the cache is per weights, not per model
 * name (scripts/fetch-model.sh may requantize the same model).
 */
function modelFingerprint(): string {
  const onnxDir = path.join(testModelPath(), TEST_MODEL, 'onnx');
  const file = ['model_quantized.onnx', 'model.onnx']
    .map((f) => path.join(onnxDir, f))
    .find((f) => existsSync(f));
  return file ? createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12) : 'none';
}

/** Real embeddings of the pool texts (cached in .cache/bench: the same model and texts give the same vectors). */
async function realPool(
  n: number,
): Promise<{ texts: string[]; vectors: Float32Array[]; queryVectors: number[][] }> {
  const texts = memoryTexts(n, 7);
  const dir = path.join(REPO, '.cache', 'bench');
  const key = `${TEST_MODEL.replace(/\W+/g, '_')}-${modelFingerprint()}`;
  const file = path.join(dir, `pool-v1-${key}-${n}.f32`);
  const qfile = path.join(dir, `queries-v1-${key}.json`);
  let buf: Buffer | undefined = existsSync(file) ? readFileSync(file) : undefined;
  let queryVectors: number[][] | undefined = existsSync(qfile)
    ? (JSON.parse(readFileSync(qfile, 'utf8')) as number[][])
    : undefined;
  if (!buf || !queryVectors || queryVectors.length !== QUERIES.length) {
    const provider = new LocalEmbeddingProvider({
      model: TEST_MODEL,
      modelPath: testModelPath(),
      allowRemote: false,
      log: () => {},
    });
    try {
      await provider.ready();
      queryVectors = await provider.embed(QUERIES);
      if (!buf) {
        log(`  embedding ${n} real sentences for the recall corpus (cached in ${path.relative(REPO, file)})`);
        const t0 = performance.now();
        const all: number[][] = [];
        for (let i = 0; i < n; i += 64) {
          all.push(...(await provider.embed(texts.slice(i, i + 64))));
          if (i % 2048 === 0 && i) log(`    ${i}/${n} (${r1(i / ((performance.now() - t0) / 1000))}/s)`);
        }
        buf = Buffer.from(new Float32Array(all.flat()).buffer);
      }
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, buf);
      writeFileSync(qfile, JSON.stringify(queryVectors));
    } finally {
      await provider.dispose();
    }
  }
  const flat = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  const dim = flat.length / n;
  const vectors = Array.from({ length: n }, (_, i) => flat.subarray(i * dim, (i + 1) * dim));
  return { texts, vectors, queryVectors };
}

/** A recall scenario: `memories` in the store, `share` of them in the current project, plus `episodes`. */
interface Scenario {
  memories: number;
  share: number;
  episodes: number;
}
const scenarioName = (s: Scenario): string =>
  `${s.memories / 1000}k@${Math.round(s.share * 100)}%${s.episodes ? `+${s.episodes / 1000}k ep` : ''}`;
/** `--recall 1k,10k@30,10k@5,10k+100k`: memories, @ share of the current project in %, + episodes. */
function parseScenarios(spec: string): Scenario[] {
  const num = (x: string) => Number(x.replace(/k$/i, '')) * (/k$/i.test(x) ? 1000 : 1);
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^(\d+k?)(?:@(\d+))?(?:\+(\d+k?))?$/i.exec(s);
      if (!m) throw new Error(`Bad recall scenario "${s}": use e.g. 10k, 10k@5, 10k+100k.`);
      return { memories: num(m[1]!), share: m[2] ? Number(m[2]) / 100 : 1, episodes: m[3] ? num(m[3]) : 0 };
    });
}
/** Other projects in a shared store (one data folder for every repository the user opens, a team server). */
const OTHER_PROJECTS = Array.from({ length: 19 }, (_, i) => `other-project-${i + 1}`);

/**
 * Distinct questions (the measured recalls must miss the query-embedding cache: "query embedding
 * included"), made of the 20 realistic questions with different openings.
 */
function distinctQueries(n: number, salt: string): string[] {
  const openings = ['', 'quick question: ', 'remind me, ', 'do you know ', 'in this repo, ', 'sorry, '];
  const closings = ['', ' thanks', ' (again)', ' — need it now', ' for the release', ' 谢谢'];
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const q = QUERIES[i % QUERIES.length]!;
    const o = openings[Math.floor(i / QUERIES.length) % openings.length]!;
    const c = closings[Math.floor(i / (QUERIES.length * openings.length)) % closings.length]!;
    out.push(`${salt}${o}${q}${c}`);
  }
  return out;
}

/**
 * A Chroma client of the bench's own for a data folder's server: on its port, or (an isolated server,
 * reachable only through its Unix socket) through the same socket transport the sidecar uses, closed at
 * the end.
 */
const sockets: SocketClient[] = [];
async function benchChromaClient(dataDir: string): Promise<ChromaClient> {
  const server = JSON.parse(readFileSync(path.join(dataDir, 'chroma', 'mnemo-server.json'), 'utf8')) as {
    port?: number;
    socket?: string;
  };
  if (server.port) return new ChromaClient({ host: '127.0.0.1', port: server.port, ssl: false });
  if (!server.socket) throw new Error(`No port or socket in ${dataDir}/chroma/mnemo-server.json.`);
  const socket = socketClient(server.socket);
  sockets.push(socket);
  return socket.client;
}

/** Seeding through a loaded machine: a dropped keep-alive connection is tried again (upserts are idempotent). */
async function retried<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (attempt >= 4) throw e;
      log(`    seeding: ${e instanceof Error ? e.message.slice(0, 80) : String(e)}; trying again`);
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

interface Seeded {
  memories: Collection;
  episodes: Collection | undefined;
}

/**
 * Seeds a store straight into Chroma and the lexical index (seeding only; every measured request goes
 * through the sidecar): `memories` memories, `share` of them in PROJECT and the rest spread over 19
 * other projects, and `episodes` turns the same way. The first min(n, pool) are real embeddings of their
 * texts; the rest are normalized mixtures w*a + (1-w)*b (+ small noise) of two pool vectors, w in
 * [0.3, 0.7], with the two texts joined, so they fall between real memories as a paraphrase or a combined
 * fact would.
 */
async function seedStore(
  dataDir: string,
  sc: Scenario,
  pool: { texts: string[]; vectors: Float32Array[] },
): Promise<Seeded> {
  const active = (
    JSON.parse(readFileSync(path.join(dataDir, 'store.json'), 'utf8')) as {
      active: { name: string; model: string; dim: number };
    }
  ).active;
  const client = await benchChromaClient(dataDir);
  const open = (name: string) =>
    client.getOrCreateCollection({
      name,
      embeddingFunction: null,
      configuration: { hnsw: { space: 'cosine' } },
    });
  const col = await open(active.name);
  const lexical = await LexicalIndex.open(path.join(dataDir, 'index', 'lexical.sqlite'));
  const r = prng(sc.memories + Math.round(sc.share * 1000) + sc.episodes);
  const now = Date.now();
  const statuses: MemoryStatus[] = [...Array<MemoryStatus>(8).fill('active'), 'confirmed', 'pending'];
  const sources: SourceType[] = [
    'chat',
    'chat',
    'chat',
    'terminal',
    'manual',
    'import',
    'troubleshooting_log',
    'code_comment',
  ];
  const projectOf = () =>
    r() < sc.share ? PROJECT : OTHER_PROJECTS[Math.floor(r() * OTHER_PROJECTS.length)]!;
  /** The i-th text and vector: real for the pool, composed after it. */
  const item = (i: number): { text: string; vector: number[] } => {
    if (i < pool.texts.length) return { text: pool.texts[i]!, vector: Array.from(pool.vectors[i]!) };
    const a = Math.floor(r() * pool.texts.length);
    const b = Math.floor(r() * pool.texts.length);
    const w = 0.3 + 0.4 * r();
    const va = pool.vectors[a]!;
    const vb = pool.vectors[b]!;
    return {
      text: `${pool.texts[a]!} ${pool.texts[b]!}`,
      vector: l2normalize(Array.from(va, (x, k) => w * x + (1 - w) * vb[k]! + (r() - 0.5) * 0.01)),
    };
  };
  // Created within the last 20 days: no month of decay has passed, so the sidecar changes nothing at start.
  const recently = () => new Date(now - Math.floor(r() * 20 * 86_400_000)).toISOString();
  const t0 = performance.now();
  try {
    const seen = new Set<string>();
    let batch: { memory: Memory; vector: number[] }[] = [];
    const flush = async () => {
      if (!batch.length) return;
      await retried(() =>
        col.upsert({
          ids: batch.map((b) => b.memory.id),
          embeddings: batch.map((b) => b.vector),
          documents: batch.map((b) => b.memory.text),
          metadatas: batch.map((b) => toMetadata(b.memory)),
        }),
      );
      await lexical.upsert(batch.map((b) => memoryLexicalDoc(b.memory)));
      batch = [];
    };
    for (let i = 0; seen.size < sc.memories; i++) {
      const { text, vector } = item(i);
      const project = projectOf();
      const id = memoryId(project, text);
      if (seen.has(id)) continue;
      seen.add(id);
      const created = recently();
      batch.push({
        vector,
        memory: {
          id,
          text,
          category: guessCategory(text),
          source_type: sources[Math.floor(r() * sources.length)]!,
          project_id: project,
          confidence_score: r2(0.5 + 0.45 * r()),
          is_actionable: /\d/.test(text),
          source_ref: [],
          status: statuses[Math.floor(r() * statuses.length)]!,
          created_at: created,
          updated_at: created,
          last_seen_at: created,
          times_seen: 1,
          added_by: 'bench@local',
          reason: 'bench corpus',
          score: 6,
          embedding_model: active.model,
          embedding_dim: active.dim,
          use_count: 0,
        },
      });
      if (batch.length >= 1000) await flush();
      if (seen.size % 20_000 === 0) log(`    seeded ${seen.size}/${sc.memories} memories`);
    }
    await flush();
    let episodes: Collection | undefined;
    if (sc.episodes) {
      episodes = await open(episodeCollectionFor(active).name);
      let eps: { episode: Episode; vector: number[] }[] = [];
      const flushEp = async () => {
        if (!eps.length) return;
        await retried(() =>
          episodes!.upsert({
            ids: eps.map((e) => e.episode.id),
            embeddings: eps.map((e) => e.vector),
            documents: eps.map((e) => e.episode.text),
            metadatas: eps.map((e) => episodeMetadata(e.episode)),
          }),
        );
        await lexical.upsert(eps.map((e) => episodeLexicalDoc(e.episode)));
        eps = [];
      };
      const epId = (i: number) => `ep_bench${String(i).padStart(10, '0')}`;
      for (let i = 0; i < sc.episodes; i++) {
        // Pool texts in another order than the memories, so turns and memories are not the same sentences.
        const { text, vector } = item(i < pool.texts.length ? (i * 7919 + 13) % pool.texts.length : i);
        const project = projectOf();
        const session = `bench-session-${Math.floor(i / 50)}`;
        const at = recently();
        eps.push({
          vector,
          episode: {
            id: epId(i),
            project_id: project,
            session_id: session,
            message_id: `m${i}`,
            role: i % 2 ? 'assistant' : 'user',
            speaker: i % 2 ? 'assistant' : ['Alice', 'Bob', '老王'][i % 3]!,
            text,
            occurred_at: at,
            source_type: 'chat',
            source_ref: [`msg:m${i}`],
            times: [],
            memory_ids: [],
            created_at: at,
            // linked to the turns before and after in the session, as ingest links them (recall/context.ts)
            previous_id: i % 50 === 0 ? '' : epId(i - 1),
            next_id: i % 50 === 49 || i === sc.episodes - 1 ? '' : epId(i + 1),
          },
        });
        if (eps.length >= 1000) await flushEp();
        if ((i + 1) % 20_000 === 0) log(`    seeded ${i + 1}/${sc.episodes} episodes`);
      }
      await flushEp();
    }
    log(
      `  seeded ${scenarioName(sc)} in ${r1((performance.now() - t0) / 1000)} s (memories ${await retried(() => col.count())}${episodes ? `, episodes ${await retried(() => episodes!.count())}` : ''})`,
    );
    return { memories: col, episodes };
  } finally {
    lexical.close();
  }
}

/** An embedding provider that records when embed() ran. */
function timedEmbedder(inner: EmbeddingProvider, spans: Span[]): EmbeddingProvider {
  return {
    get modelId() {
      return inner.modelId;
    },
    dimension: () => inner.dimension(),
    ready: () => inner.ready(),
    embed: async (texts) => {
      const t0 = performance.now();
      try {
        return await inner.embed(texts);
      } finally {
        spans.push({ what: 'embed', t0, t1: performance.now() });
      }
    },
    dispose: () => inner.dispose(),
  };
}

/** Total length of the union of intervals (overlapping channels count once). */
function unionMs(spans: Span[]): number {
  const s = [...spans].sort((a, b) => a.t0 - b.t0);
  let total = 0;
  let end = -Infinity;
  for (const x of s) {
    if (x.t1 <= end) continue;
    total += x.t1 - Math.max(x.t0, end);
    end = x.t1;
  }
  return total;
}

/** The phases of the split: they add up to the in-process total (overlapping channels count once). */
const PHASES = ['embed', 'channels', 'hydrate', 'rule', 'rest'] as const;
/** The channels, each on its own (they run in parallel: their sum is more than the channels phase). */
const CHANNELS = ['memory_vector', 'episode_vector', 'lexical'] as const;
/**
 * Parts of the vector channels, in the results file only: the memories' ids-and-distances query, the
 * lookup of those ids' projects and facts in the lexical index (memories and episodes), every read by id (the
 * vector channels' and the lexical hits').
 */
const VECTOR_PARTS = ['ids_memories', 'projects_of_ids', 'reads_by_id'] as const;

/** Waits for a log line that starts with `prefix` after the first `from` lines; the line, or undefined. */
async function waitForLog(
  s: SidecarSession,
  from: number,
  prefix: string,
  timeoutMs: number,
): Promise<string | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const line = s.logs.slice(from).find((l) => l.message.startsWith(prefix));
    if (line || performance.now() > deadline) return line?.message.slice(prefix.length).trim();
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function benchRecall(out: Record<string, unknown>, loadRss: Record<string, Rss>): Promise<void> {
  log(
    `recall: ${P.recallScenarios.map(scenarioName).join(', ')} (${P.recallRuns} distinct questions each, over JSON-RPC)`,
  );
  const pool = await realPool(P.pool);
  const results: Record<string, unknown> = {};
  out.recall = results;
  const postingsReady: Record<string, string> = {};
  out.recall_postings_ready = postingsReady;
  for (const sc of P.recallScenarios) {
    const name = scenarioName(sc);
    const loadAt = os.loadavg().map(r2);
    const dataDir = freshDataDir(`recall-${name.replace(/\W+/g, '_')}`);
    const queries = distinctQueries(P.recallRuns, '');
    const where = buildWhere({ project_ids: [PROJECT, 'global'], status: RECALLABLE, min_confidence: 0.6 });
    const raw: Record<string, Dist> = {};
    let rpc: Dist;
    let repeated: Dist;
    {
      const { s } = await startSidecar(dataDir);
      try {
        const pids = pidsOf(s);
        await settle([pids.sidecar, pids.chroma]);
        const seeded = await seedStore(dataDir, sc, pool);
        await settle([pids.sidecar, pids.chroma]);
        const ask = (query: string) => s.request(RecallRequest, { query, project_ids: [PROJECT] });
        // Warm-up: load the HNSW indexes, the lexical index and the query path (other questions).
        const logged = s.logs.length;
        const warmStart = performance.now();
        for (const q of distinctQueries(10, 'warm-up: ')) await ask(q);
        // The seeding wrote behind the sidecar's back: its search thread catches up with (or loads anew)
        // the postings it ranks from (store/lexical/postingsMirror.ts), answering from the file meanwhile, as a
        // sidecar does for a few seconds after a bulk import. Measured once that is done.
        const ready = await waitForLog(s, logged, LOADED, 120_000);
        postingsReady[name] = ready
          ? `${r1((performance.now() - warmStart) / 1000)} s after the warm-up began (${ready})`
          : 'not within 120 s';
        log(`  lexical postings: ${postingsReady[name]}`);
        const sampler = rssSampler(pids);
        const lat: number[] = [];
        for (const q of queries) {
          const t0 = performance.now();
          await ask(q);
          lat.push(performance.now() - t0);
        }
        // The same 20 questions again and again (an agent asking what it asked before).
        const rep: number[] = [];
        for (let i = 0; i < Math.min(100, P.recallRuns); i++) {
          const t0 = performance.now();
          await ask(QUERIES[i % QUERIES.length]!);
          if (i >= QUERIES.length) rep.push(performance.now() - t0);
        }
        loadRss[`recall_${name}`] = sampler.stop();
        rpc = dist(lat);
        repeated = dist(rep);
        // Raw Chroma with precomputed vectors: what each filter costs on its own (k = 3, recall's default).
        const rawRuns = Math.min(60, P.recallRuns);
        const rawQuery = async (
          col: Collection,
          w: Where | undefined,
          k: number,
          include: ('documents' | 'metadatas' | 'distances')[] = ['documents', 'metadatas', 'distances'],
        ) => {
          for (let i = 0; i < 5; i++)
            await col.query({ queryEmbeddings: [pool.queryVectors[i]!], nResults: k, where: w, include });
          const xs: number[] = [];
          for (let i = 0; i < rawRuns; i++) {
            const t0 = performance.now();
            await retried(() =>
              col.query({
                queryEmbeddings: [pool.queryVectors[i % QUERIES.length]!],
                nResults: k,
                where: w,
                include,
              }),
            );
            xs.push(performance.now() - t0);
          }
          return dist(xs);
        };
        raw.recall_where_k3 = await rawQuery(seeded.memories, where, 3);
        raw.no_filter_k3 = await rawQuery(seeded.memories, undefined, 3);
        raw.no_filter_k50 = await rawQuery(seeded.memories, undefined, 50);
        raw.no_filter_k120 = await rawQuery(seeded.memories, undefined, 120);
        raw.no_filter_k120_ids_distances = await rawQuery(seeded.memories, undefined, 120, ['distances']);
        raw.no_filter_k2000_ids_distances = await rawQuery(seeded.memories, undefined, 2000, ['distances']);
        raw.no_filter_k1000_ids_distances = await rawQuery(seeded.memories, undefined, 1000, ['distances']);
        raw.project_only_k3 = await rawQuery(seeded.memories, { project_id: PROJECT }, 3);
        raw.project_only_k20 = await rawQuery(seeded.memories, { project_id: PROJECT }, 20);
        raw.recall_where_k20 = await rawQuery(seeded.memories, where, 20);
        if (seeded.episodes) {
          raw.episodes_no_filter_k20 = await rawQuery(seeded.episodes, undefined, 20);
          raw.episodes_project_k20 = await rawQuery(seeded.episodes, { project_id: PROJECT }, 20);
        }
      } finally {
        await s.stop();
        for (const t of sockets.splice(0)) t.close();
      }
    }
    // The split, in process: the same service code the sidecar runs, with the embedder, the store, the
    // episodes and the lexical index timed.
    const config = resolveConfig(testConfig(dataDir));
    const spans: Span[] = [];
    const inner = createEmbeddingProvider({
      ...config.embedding,
      cacheDir: path.join(dataDir, 'models'),
      log: () => {},
    });
    const svc = new MnemoService({ config, embedder: timedEmbedder(inner, spans), backgroundQueue: false });
    const split: Record<string, number[]> = Object.fromEntries(
      [...PHASES, ...CHANNELS, ...VECTOR_PARTS, 'total', 'redact_query'].map((k) => [k, [] as number[]]),
    );
    try {
      await svc.start();
      await svc.requireModel();
      // as above: measured once the search thread ranks from its in-memory postings
      await svc.store.lexical.index?.run('wait for the postings', (ix) => ix.postingsSettled(), false);
      // The memory channel: the planner's queries and the read-back of the current projects' neighbours.
      timeMethod(svc.store, 'nearest', 'memory_vector', spans);
      timeMethod(svc.store, 'query', 'memory_vector', spans);
      timeMethod(svc.store, 'nearestIds', 'ids_memories', spans);
      timeMethod(svc.store.lexical, 'indexed', 'projects_of_ids', spans);
      timeMethod(svc.episodes, 'query', 'episode_vector', spans);
      timeMethod(svc.store, 'get', 'hydrate', spans);
      timeMethod(svc.episodes, 'get', 'hydrate', spans);
      timeMethod(svc.store, 'find', 'rule', spans);
      const lexical = svc.store.lexical.index;
      if (lexical) {
        const run = lexical.run.bind(lexical);
        lexical.run = async (what, op, fallback) => {
          if (what !== 'search') return run(what, op, fallback);
          const t0 = performance.now();
          try {
            return await run(what, op, fallback);
          } finally {
            spans.push({ what: 'lexical', t0, t1: performance.now() });
          }
        };
      }
      for (const q of distinctQueries(10, 'warm-up: '))
        await svc.recall({ query: q, project_ids: [PROJECT] });
      for (const q of queries) {
        spans.length = 0;
        const t0 = performance.now();
        await svc.recall({ query: q, project_ids: [PROJECT] });
        const total = performance.now() - t0;
        const of = (...w: string[]) => spans.filter((x) => w.includes(x.what));
        // Each phase counts only the time no earlier phase covers (the lexical channel runs during the
        // embedding, for example), so the phases add up to the total.
        let covered: Span[] = [];
        for (const [phase, what] of [
          ['embed', ['embed']],
          ['channels', CHANNELS],
          ['hydrate', ['hydrate']],
          ['rule', ['rule']],
        ] as const) {
          const before = unionMs(covered);
          covered = [...covered, ...of(...what)];
          split[phase]!.push(unionMs(covered) - before);
        }
        split.rest!.push(total - unionMs(spans));
        for (const c of [...CHANNELS, 'ids_memories', 'projects_of_ids']) split[c]!.push(unionMs(of(c)));
        split.reads_by_id!.push(unionMs(of('hydrate')));
        split.total!.push(total);
        const r0 = performance.now();
        await redactText(q);
        split.redact_query!.push(performance.now() - r0);
      }
      await svc.store.settled();
    } finally {
      await svc.dispose();
    }
    const splitDist = Object.fromEntries(Object.entries(split).map(([k, v]) => [k, dist(v)])) as Record<
      string,
      Dist
    >;
    const embed = splitDist.embed!.p50;
    const rawK3 = raw.recall_where_k3!.p50;
    const res = {
      scenario: name,
      memories: sc.memories,
      project_share: sc.share,
      episodes: sc.episodes,
      real_vectors: Math.min(sc.memories, pool.texts.length),
      load_average: { start: loadAt, end: os.loadavg().map(r2) },
      over_json_rpc_ms: rpc,
      repeated_questions_over_json_rpc_ms: repeated,
      raw_chroma_ms: raw,
      in_process_split_ms: splitDist,
      /** JSON-RPC, the sidecar's own dispatch and the bench client: the medians' difference. */
      rpc_ms_p50: r2(rpc.p50 - splitDist.total!.p50),
      ratio_p50_vs_raw_plus_embedding: r2(rpc.p50 / (rawK3 + embed)),
      ratio_p50_without_embedding_vs_raw: r2((rpc.p50 - embed) / rawK3),
    };
    results[name] = res;
    log(
      `  ${name}: recall p50 ${rpc.p50} / p95 ${rpc.p95} ms (repeated questions ${repeated.p50} / ${repeated.p95}); raw Chroma k=3 with recall's where p50 ${rawK3} ms, unfiltered ${raw.no_filter_k3!.p50} ms; load ${loadAt.join(' ')}`,
    );
    const whole = sc.share === 1 ? '' : ` (project ${Math.round(sc.share * 100)}% of the store)`;
    const ep = sc.episodes ? ` + ${sc.episodes / 1000}k episodes` : '';
    if (sc.memories === 10_000)
      target(`recall p95 @10k${ep}${whole}, query embedding included`, rpc.p95, 'ms', '<=', 50);
    if (sc.memories === 100_000)
      target(`recall p95 @100k${ep}${whole}, query embedding included`, rpc.p95, 'ms', '<=', 100);
    if (sc.memories === 1000 && sc.share === 1 && !sc.episodes) {
      target(
        'recall @1k p50 / (raw Chroma p50 + query embedding p50)',
        res.ratio_p50_vs_raw_plus_embedding,
        'x',
        '<=',
        1.5,
      );
      // Issue 20's target is the ratio above (a raw query plus one query embedding); this one it asks to
      // be stated beside it.
      targets.push({
        metric: 'recall @1k (p50 - query embedding) / raw Chroma p50',
        value: res.ratio_p50_without_embedding_vs_raw,
        unit: 'x',
        target: '- (stated)',
        ok: undefined,
      });
    }
    if (!args['keep-data']) cleanupDataDir(dataDir);
  }
}

// ------------------------------------------------------------------ footprint

async function benchFootprint(out: Record<string, unknown>): Promise<void> {
  log(`footprint: ${P.coldStarts} cold start(s), idle RSS`);
  const starts: number[] = [];
  let idle: Rss | undefined;
  for (let i = 0; i < P.coldStarts; i++) {
    const dataDir = freshDataDir(`cold-${i}`);
    const { s, readyMs } = await startSidecar(dataDir);
    starts.push(readyMs);
    try {
      if (i === 0) {
        const pids = pidsOf(s);
        await settle([pids.sidecar, pids.chroma]);
        await new Promise((r) => setTimeout(r, 2000));
        idle = rssOf(pids);
      }
    } finally {
      await s.stop();
    }
  }
  // The model is unloaded after a quiet period (10 min by default; 3 s here): RSS without it, and how long
  // the first recall then takes (the model loads again).
  let unloaded: Rss | undefined;
  let reloadMs: number | undefined;
  {
    const { s } = await startSidecar(freshDataDir('unload'), { MNEMO_EMBEDDING_IDLE_UNLOAD_MS: '3000' });
    try {
      const pids = pidsOf(s);
      await s.waitFor(
        'the idle embedding worker to exit',
        () => !childrenOf(pids.sidecar).some((c) => /embedWorker/.test(c.cmd)),
        60_000,
      );
      await settle([pids.sidecar, pids.chroma]);
      unloaded = rssOf(pids);
      const t0 = performance.now();
      await s.request(RecallRequest, { query: QUERIES[0]!, project_ids: [PROJECT], mark_used: false });
      reloadMs = r1(performance.now() - t0);
    } finally {
      await s.stop();
    }
  }
  const d = dist(starts);
  out.cold_start_ms = d;
  out.rss_idle_mb = idle;
  out.rss_idle_model_unloaded_mb = unloaded;
  out.first_recall_after_unload_ms = reloadMs;
  log(`  model unloaded: RSS ${JSON.stringify(unloaded)}; first recall after it ${reloadMs} ms`);
  // Issue 20's idle target allows the model to be unloaded after a quiet period: that is the idle state;
  // the RSS with the model still loaded (the first 10 minutes after the last request) is shown beside it.
  target(
    'RSS idle, model unloaded after the quiet period (sidecar + Chroma)',
    unloaded?.all,
    'MB',
    '<=',
    300,
  );
  log(`  cold start ${starts.map((x) => Math.round(x)).join(', ')} ms; idle RSS ${JSON.stringify(idle)}`);
  target('sidecar cold start (spawn to first recall, median)', d.p50, 'ms', '<=', 2000);
  targets.push({
    metric: 'RSS idle with the model loaded (sidecar + embedding worker + Chroma)',
    value: idle?.all,
    unit: 'MB',
    target: '- (unloaded after 10 min)',
    ok: undefined,
  });
}

// ------------------------------------------------------------------ editor (activation, event-loop lag)

async function benchEditor(out: Record<string, unknown>): Promise<void> {
  log(
    'editor: activation time and extension-host event-loop lag during Import Chat (code-server + Chromium)',
  );
  const artifacts = path.join(TMP, 'editor');
  const env = {
    ...process.env,
    MNEMO_BENCH_EDITOR: JSON.stringify({
      sessions: P.editorSessions,
      messagesPerSession: P.editorMessagesPerSession,
      learnSeconds: P.editorLearnSeconds,
    }),
  };
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        path.join(REPO, 'test', 'editor', 'run.mjs'),
        '--ext-host',
        '--suite',
        path.join(REPO, 'bench', 'editor'),
        '--artifacts',
        artifacts,
        '--mocha-timeout',
        '900',
        '--ext-host-timeout',
        '1200',
      ],
      { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.on('data', (b: Buffer) =>
      b
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((l) => log(`  | ${l}`)),
    );
    child.stderr.on('data', (b: Buffer) =>
      b
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((l) => log(`  | ${l}`)),
    );
    child.on('exit', (c) => resolve(c ?? 1));
  });
  const file = path.join(artifacts, 'ext-host', 'bench-editor.json');
  if (!existsSync(file)) {
    out.editor = { error: `the editor bench wrote no results (run.mjs exit ${code}); see ${artifacts}` };
    target('extension activation', undefined, 'ms', '<=', 50);
    target('extension-host event-loop lag during Import Chat (max)', undefined, 'ms', '<', 100);
    return;
  }
  type Phase = {
    lag_ms: { p50: number; p99: number; max: number };
    stalls?: {
      count: number;
      cpu_bound: number;
      max_cpu_ms: number;
      gc: { max_ms: number };
      worst: {
        ms: number;
        cpu_ms: number;
        wait_ms: number;
        machine_busy_ms?: number;
        machine_steal_ms?: number;
        machine_cpu_ms?: number;
      }[];
    };
  };
  const res = JSON.parse(readFileSync(file, 'utf8')) as {
    activationMs: number;
    import: Phase & { path: string; seconds: number };
    learning: Phase;
  };
  out.editor = res;
  target('extension activation (activate() body)', r2(res.activationMs), 'ms', '<=', 50);
  const phases: [string, Phase][] = [
    [`Import Chat of ${P.editorSessions * P.editorMessagesPerSession} messages`, res.import],
    ['while the sidecar learns from them', res.learning],
  ];
  for (const [what, ph] of phases) {
    target(`extension-host event-loop lag, ${what} (max)`, ph.lag_ms.max, 'ms', '<', 100);
    target(`extension-host event-loop lag, ${what} (p99)`, ph.lag_ms.p99, 'ms', '<', 50);
    // Whether the stalls were the host's own work or the machine's load (bench/editor/stalls.ts).
    if (ph.stalls)
      log(
        `  ${what}: ${ph.stalls.count} stalls > 50 ms, ${ph.stalls.cpu_bound} of them mostly on-CPU; ` +
          `longest on-CPU time in a stall ${ph.stalls.max_cpu_ms} ms, longest GC pause ${ph.stalls.gc.max_ms} ms`,
      );
    const w = ph.stalls?.worst[0];
    if (w)
      log(
        `    the longest (${w.ms} ms): the host thread ${w.cpu_ms} ms on a CPU, ${w.wait_ms} ms waiting for one; ` +
          `the machine's ${w.machine_cpu_ms ?? '?'} ms of CPU meanwhile: ${w.machine_busy_ms ?? '?'} busy, ` +
          `${w.machine_steal_ms ?? '?'} taken by the hypervisor`,
      );
  }
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  if (!existsSync(path.join(testModelPath(), ...TEST_MODEL.split('/'))))
    throw new Error(`No model in ${testModelPath()}: run scripts/fetch-model.sh first.`);
  ensureBuild();
  TMP = mkdtempSync(path.join(os.tmpdir(), 'mnemo-bench-'));
  const started = Date.now();
  const out: Record<string, unknown> = {};
  const loadRss: Record<string, Rss> = {};
  const result: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: machine(),
    quick: QUICK,
    sections: [...only],
    model: TEST_MODEL,
    params: P,
  };
  // Other work on the machine skews every number here: the load average is recorded with the results.
  const loadStart = os.loadavg().map(r2);
  if (loadStart[0]! > os.cpus().length / 2)
    log(
      `note: load average ${loadStart.join(' ')} on ${os.cpus().length} cores before the run; numbers will be noisy`,
    );
  try {
    if (only.has('ingest') || only.has('bulk')) await benchIngest(out, loadRss);
    if (only.has('recall')) await benchRecall(out, loadRss);
    if (only.has('footprint')) await benchFootprint(out);
    if (only.has('editor')) await benchEditor(out);
    if (only.has('capture'))
      await benchCapture(out, {
        quick: QUICK,
        log,
        freshDataDir,
        startSidecar,
        peakRss: (s) => rssSampler(pidsOf(s)),
        target,
      });
  } finally {
    if (!args['keep-data']) {
      for (const d of dataDirs) cleanupDataDir(d);
      rmSync(TMP, { recursive: true, force: true });
    } else log(`data kept in ${TMP}`);
  }
  if (Object.keys(loadRss).length) {
    out.rss_under_load_mb = loadRss;
    if (loadRss.bulk_import)
      target(
        `RSS peak while bulk importing ${P.bulk} (sidecar + embedding worker + Chroma)`,
        loadRss.bulk_import.all,
        'MB',
        '<=',
        400,
      );
  }
  Object.assign(result, out, {
    targets,
    load_average: { start: loadStart, end: os.loadavg().map(r2) },
    minutes: r1((Date.now() - started) / 60_000),
  });

  // The table, with the previous results file's numbers beside the new ones.
  const prev = previousResults();
  const before = new Map((prev?.targets ?? []).map((t) => [t.metric, t]));
  const rows: string[][] = targets.map((t) => {
    const old = before.get(t.metric);
    return [
      t.metric,
      t.value === undefined ? 'n/a' : `${t.value} ${t.unit}`,
      old?.value === undefined ? '-' : `${old.value} ${old.unit}`,
      t.target,
      t.ok === undefined ? (t.value === undefined ? 'n/a' : '') : t.ok ? 'PASS' : 'MISS',
    ];
  });
  const header = ['metric', 'value', prev ? `previous (${prev.file})` : 'previous', 'target', ''];
  const w = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i]!.length)));
  const m = machine();
  const loads = result.load_average as { start: number[]; end: number[] };
  console.log(
    `\nMnemo bench  ${String(m.cpu)}, ${String(m.cores)} cores, ${String(m.memory_gb)} GB  node ${process.version}${QUICK ? '  (--quick)' : ''}`,
  );
  console.log(
    `load average (1/5/15 min) at start ${loads.start.join(' ')}, at end ${loads.end.join(' ')}` +
      (prev ? `; previous run ${prev.load}` : ''),
  );
  for (const r of [header, ...rows])
    console.log(
      `${r[0]!.padEnd(w[0]!)}  ${r[1]!.padStart(w[1]!)}  ${r[2]!.padStart(w[2]!)}  ${r[3]!.padEnd(w[3]!)}  ${r[4]}`,
    );
  const rec = out.recall as Record<string, RecallResultRow> | undefined;
  if (rec) {
    const f = (d: Dist | undefined) => (d ? `${d.p50}/${d.p95}` : '-');
    const cols = [
      'scenario',
      'JSON-RPC',
      'repeated q',
      ...PHASES,
      'rpc',
      ...CHANNELS,
      'raw k3',
      'raw no filter',
      'load',
    ];
    console.log(
      '\nrecall split (ms, p50/p95). embed + channels + hydrate + rule + rest = the in-process total (each phase counts the time no earlier one covers); channels run',
    );
    console.log(
      'in parallel (each on its own at the right); rpc = JSON-RPC p50 - in-process p50; raw = Chroma with a precomputed vector',
    );
    const table = Object.values(rec).map((x) => {
      const s = x.in_process_split_ms;
      return [
        x.scenario,
        f(x.over_json_rpc_ms),
        f(x.repeated_questions_over_json_rpc_ms),
        ...PHASES.map((k) => f(s[k])),
        String(x.rpc_ms_p50),
        ...CHANNELS.map((k) => f(s[k])),
        f(x.raw_chroma_ms.recall_where_k3),
        f(x.raw_chroma_ms.no_filter_k3),
        x.load_average.start.join(' '),
      ];
    });
    const cw = cols.map((_, i) => Math.max(...[cols, ...table].map((r) => r[i]!.length)));
    for (const r of [cols, ...table]) console.log(`  ${r.map((c, i) => c.padEnd(cw[i]!)).join('  ')}`);
  }

  const dir = path.join(REPO, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${String(result.date).slice(0, 19).replace(/:/g, '')}Z.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(REPO, file)} (${String(result.minutes)} min)`);
}

interface RecallResultRow {
  scenario: string;
  load_average: { start: number[]; end: number[] };
  over_json_rpc_ms: Dist;
  repeated_questions_over_json_rpc_ms: Dist;
  raw_chroma_ms: Record<string, Dist>;
  in_process_split_ms: Record<string, Dist>;
  rpc_ms_p50: number;
}

/** The newest earlier results file (bench/results/*.json), if any. */
function previousResults(): { file: string; targets: Target[]; load: string } | undefined {
  const dir = path.join(REPO, 'bench', 'results');
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}-.*\.json$/.test(f)) // this suite's; bench/embed.ts and bench/bulkEmbed.ts write others
    .sort();
  const last = files[files.length - 1];
  if (!last) return undefined;
  try {
    const r = JSON.parse(readFileSync(path.join(dir, last), 'utf8')) as {
      targets?: Target[];
      load_average?: { start: number[]; end: number[] };
    };
    const l = r.load_average;
    return {
      file: last,
      targets: r.targets ?? [],
      load: l ? `${l.start.join(' ')} -> ${l.end.join(' ')}` : 'not recorded',
    };
  } catch {
    return undefined;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
