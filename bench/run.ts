/**
 * The benchmark suite (`npm run bench`, not part of the tests): ingest, bulk import, recall, footprint and
 * responsiveness against the real sidecar (dist/sidecar.js over JSON-RPC), its real Chroma server and the
 * real all-MiniLM-L6-v2 model (scripts/fetch-model.sh), with deterministic realistic input
 * (bench/lib/generate.ts). Prints a table with every target's PASS/MISS and writes
 * bench/results/<UTC date>.json with the machine's description. docs/benchmarks.md explains the numbers.
 *
 *   npm run bench                        # everything (~15-25 min on 2 cores)
 *   npm run bench -- --quick             # recall at 1k/10k only, fewer sessions, 2k bulk import
 *   npm run bench -- --only recall,ingest   # sections: ingest, recall, footprint, editor
 *
 * Data lives in a temp folder that is removed at the end; every server listens on 127.0.0.1. Recall at
 * 100k stores composed vectors (normalized mixtures of real embeddings; see seedCorpus) because embedding
 * 100k texts with the real model would take ~12 min here; queries always use the real model.
 */
import { execFileSync, spawn } from 'node:child_process';
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
import { ChromaClient, type Collection } from 'chromadb';
import { resolveConfig } from '../sidecar/config';
import {
  createEmbeddingProvider,
  LocalEmbeddingProvider,
  l2normalize,
  type EmbeddingProvider,
} from '../sidecar/embed/index';
import { memoryId, type Memory, type MemoryStatus, type SourceType } from '../sidecar/model';
import {
  BulkImportRequest,
  IngestRequest,
  ProgressNotification,
  RecallRequest,
  type IngestReport,
} from '../sidecar/protocol';
import { guessCategory, MnemoService } from '../sidecar/service';
import { buildWhere, toMetadata } from '../sidecar/store/memoryStore';
import {
  cleanupDataDir,
  SidecarSession,
  TEST_MODEL,
  testConfig,
  testModelPath,
} from '../test/support/sidecarSession';
import { memoryTexts, prng, QUERIES, session } from './lib/generate';

const REPO = path.resolve(__dirname, '..');

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
  },
});
const SECTIONS = ['ingest', 'recall', 'footprint', 'editor'] as const;
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
  bulk: QUICK ? 2000 : 10_000,
  recallSizes: QUICK ? [1000, 10_000] : [1000, 10_000, 100_000],
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
}
function rssOf(p: Pids): Rss {
  const sidecar = rssMb(p.sidecar);
  const worker = rssMb(p.worker);
  return { sidecar, worker, sidecar_plus_worker: r1(sidecar + worker), chroma: rssMb(p.chroma) };
}

/** Samples RSS every 100 ms and keeps the peaks. */
function rssSampler(p: Pids): { stop(): Rss } {
  const peak: Rss = { sidecar: 0, worker: 0, sidecar_plus_worker: 0, chroma: 0 };
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
      return peak;
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
): Promise<{ s: SidecarSession; startedAt: number; readyMs: number }> {
  const startedAt = performance.now();
  const s = await SidecarSession.start(testConfig(dataDir));
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
  const bundles = ['sidecar.js', 'extension.js', 'embedWorker.js'].map((f) => path.join(REPO, 'dist', f));
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

  log(`bulk import: ${P.bulk} memories through mnemo/memory/import`);
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
    const res = await b.s.request(BulkImportRequest, { memories, progress_token: 'bulk' });
    const sec = (performance.now() - t0) / 1000;
    lag.disable();
    loadRss.bulk_import = sampler.stop();
    const perSec = r1(P.bulk / sec);
    out.bulk_import = {
      memories: P.bulk,
      seconds: r2(sec),
      memories_per_s: perSec,
      result: res,
      client_event_loop_lag_ms: {
        p50: r2(lag.percentile(50) / 1e6),
        p99: r2(lag.percentile(99) / 1e6),
        max: r2(lag.max / 1e6),
      },
    };
    log(`  ${perSec} memories/s (${JSON.stringify(res)})`);
    target(`bulk import throughput (${P.bulk})`, perSec, 'memories/s', '>=', 200);
  } finally {
    await b.s.stop();
  }
}

// ------------------------------------------------------------------ recall

/** Real embeddings of the pool texts (cached in .cache/bench: the same model and texts give the same vectors). */
async function realPool(
  n: number,
): Promise<{ texts: string[]; vectors: Float32Array[]; queryVectors: number[][] }> {
  const texts = memoryTexts(n, 7);
  const dir = path.join(REPO, '.cache', 'bench');
  const file = path.join(dir, `pool-v1-${TEST_MODEL.replace(/\W+/g, '_')}-${n}.f32`);
  const qfile = path.join(dir, `queries-v1-${TEST_MODEL.replace(/\W+/g, '_')}.json`);
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

/**
 * Stores `n` memories in the sidecar's active collection directly (seeding only; every measured request
 * goes through the sidecar). The first min(n, pool) are real embeddings of their texts; the rest are
 * normalized mixtures w*a + (1-w)*b (+ small noise) of two pool vectors, w in [0.3, 0.7], with the two
 * texts joined, so they fall between real memories as a paraphrase or a combined fact would.
 */
async function seedCorpus(
  dataDir: string,
  n: number,
  pool: { texts: string[]; vectors: Float32Array[] },
): Promise<Collection> {
  const active = (
    JSON.parse(readFileSync(path.join(dataDir, 'store.json'), 'utf8')) as {
      active: { name: string; model: string; dim: number };
    }
  ).active;
  const port = (
    JSON.parse(readFileSync(path.join(dataDir, 'chroma', 'mnemo-server.json'), 'utf8')) as { port: number }
  ).port;
  const client = new ChromaClient({ host: '127.0.0.1', port, ssl: false });
  const col = await client.getOrCreateCollection({
    name: active.name,
    embeddingFunction: null,
    configuration: { hnsw: { space: 'cosine' } },
  });
  const r = prng(n);
  const now = Date.now();
  const statuses: MemoryStatus[] = [
    'active',
    'active',
    'active',
    'active',
    'active',
    'active',
    'active',
    'active',
    'confirmed',
    'pending',
  ];
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
  const seen = new Set<string>();
  let batch: { memory: Memory; vector: number[] }[] = [];
  const flush = async () => {
    if (!batch.length) return;
    await col.upsert({
      ids: batch.map((b) => b.memory.id),
      embeddings: batch.map((b) => b.vector),
      documents: batch.map((b) => b.memory.text),
      metadatas: batch.map((b) => toMetadata(b.memory)),
    });
    batch = [];
  };
  const t0 = performance.now();
  for (let i = 0; seen.size < n; i++) {
    let text: string;
    let vector: number[];
    if (i < pool.texts.length && i < n) {
      text = pool.texts[i]!;
      vector = Array.from(pool.vectors[i]!);
    } else {
      const a = Math.floor(r() * pool.texts.length);
      const b = Math.floor(r() * pool.texts.length);
      const w = 0.3 + 0.4 * r();
      const va = pool.vectors[a]!;
      const vb = pool.vectors[b]!;
      text = `${pool.texts[a]!} ${pool.texts[b]!}`;
      vector = l2normalize(Array.from(va, (x, k) => w * x + (1 - w) * vb[k]! + (r() - 0.5) * 0.01));
    }
    const id = memoryId(PROJECT, text);
    if (seen.has(id)) continue;
    seen.add(id);
    // Created within the last 20 days: no month of decay has passed, so the sidecar changes nothing at start.
    const created = new Date(now - Math.floor(r() * 20 * 86_400_000)).toISOString();
    batch.push({
      vector,
      memory: {
        id,
        text,
        category: guessCategory(text),
        source_type: sources[Math.floor(r() * sources.length)]!,
        project_id: PROJECT,
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
    if (seen.size % 20_000 === 0) log(`    seeded ${seen.size}/${n}`);
  }
  await flush();
  log(`  seeded ${n} memories in ${r1((performance.now() - t0) / 1000)} s (count ${await col.count()})`);
  return col;
}

/** An embedding provider that adds up the time spent in embed(). */
function timedEmbedder(inner: EmbeddingProvider, acc: { ms: number }): EmbeddingProvider {
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
        acc.ms += performance.now() - t0;
      }
    },
    dispose: () => inner.dispose(),
  };
}

async function benchRecall(out: Record<string, unknown>, loadRss: Record<string, Rss>): Promise<void> {
  log(`recall at ${P.recallSizes.join(', ')} memories (${P.recallRuns} queries each)`);
  const pool = await realPool(P.pool);
  const results: Record<string, unknown> = {};
  out.recall = results;
  for (const n of P.recallSizes) {
    const dataDir = freshDataDir(`recall-${n}`);
    let col: Collection;
    let rpc: Dist;
    let raw: Dist;
    {
      const { s } = await startSidecar(dataDir);
      try {
        col = await seedCorpus(dataDir, n, pool);
        const pids = pidsOf(s);
        await settle([pids.sidecar, pids.chroma]);
        const where = buildWhere({
          project_ids: [PROJECT, 'global'],
          status: RECALLABLE,
          min_confidence: 0.6,
        });
        // Warm-up: load the HNSW index and the query path.
        for (let i = 0; i < 10; i++)
          await s.request(RecallRequest, { query: QUERIES[i % QUERIES.length]!, project_ids: [PROJECT] });
        for (let i = 0; i < 10; i++)
          await col.query({
            queryEmbeddings: [pool.queryVectors[i % QUERIES.length]!],
            nResults: 3,
            where,
            include: ['documents', 'metadatas', 'distances'],
          });
        const sampler = rssSampler(pids);
        const lat: number[] = [];
        for (let i = 0; i < P.recallRuns; i++) {
          const t0 = performance.now();
          await s.request(RecallRequest, { query: QUERIES[i % QUERIES.length]!, project_ids: [PROJECT] });
          lat.push(performance.now() - t0);
        }
        loadRss[`recall_${n}`] = sampler.stop();
        const rawLat: number[] = [];
        for (let i = 0; i < P.recallRuns; i++) {
          const t0 = performance.now();
          await col.query({
            queryEmbeddings: [pool.queryVectors[i % QUERIES.length]!],
            nResults: 3,
            where,
            include: ['documents', 'metadatas', 'distances'],
          });
          rawLat.push(performance.now() - t0);
        }
        rpc = dist(lat);
        raw = dist(rawLat);
      } finally {
        await s.stop();
      }
    }
    // The split, in process: the same service code the sidecar runs, with the embedder and the store timed.
    const config = resolveConfig(testConfig(dataDir));
    const acc = { ms: 0 };
    const inner = createEmbeddingProvider({
      ...config.embedding,
      cacheDir: path.join(dataDir, 'models'),
      log: () => {},
    });
    const svc = new MnemoService({ config, embedder: timedEmbedder(inner, acc), backgroundQueue: false });
    const split = {
      embed: [] as number[],
      chroma_query: [] as number[],
      rule_channel: [] as number[],
      mark_used: [] as number[],
      rank_format_other: [] as number[],
      total: [] as number[],
    };
    try {
      await svc.start();
      await svc.requireModel();
      const store = svc.store;
      const t = { query: 0, find: 0, update: 0 };
      const query = store.query.bind(store);
      const find = store.find.bind(store);
      const update = store.updateMetadata.bind(store);
      store.query = async (...a) => {
        const t0 = performance.now();
        try {
          return await query(...a);
        } finally {
          t.query += performance.now() - t0;
        }
      };
      store.find = async (...a) => {
        const t0 = performance.now();
        try {
          return await find(...a);
        } finally {
          t.find += performance.now() - t0;
        }
      };
      store.updateMetadata = async (...a) => {
        const t0 = performance.now();
        try {
          return await update(...a);
        } finally {
          t.update += performance.now() - t0;
        }
      };
      for (let i = 0; i < 10; i++)
        await svc.recall({ query: QUERIES[i % QUERIES.length]!, project_ids: [PROJECT] });
      for (let i = 0; i < P.recallRuns; i++) {
        acc.ms = 0;
        t.query = t.find = t.update = 0;
        const t0 = performance.now();
        await svc.recall({ query: QUERIES[i % QUERIES.length]!, project_ids: [PROJECT] });
        const total = performance.now() - t0;
        split.embed.push(acc.ms);
        split.chroma_query.push(t.query);
        split.rule_channel.push(t.find);
        split.mark_used.push(t.update);
        split.rank_format_other.push(total - acc.ms - t.query - t.find - t.update);
        split.total.push(total);
      }
    } finally {
      await svc.dispose();
    }
    const splitDist = Object.fromEntries(Object.entries(split).map(([k, v]) => [k, dist(v)]));
    const ratio = r2(rpc.p50 / raw.p50);
    const ratioNoEmbed = r2((rpc.p50 - splitDist.embed!.p50) / raw.p50);
    results[String(n)] = {
      memories: n,
      real_vectors: Math.min(n, pool.texts.length),
      composed_vectors: Math.max(0, n - pool.texts.length),
      over_json_rpc_ms: rpc,
      raw_chroma_query_ms: raw,
      in_process_split_ms: splitDist,
      overhead_ratio_p50: ratio,
      overhead_ratio_p50_without_query_embedding: ratioNoEmbed,
    };
    log(
      `  ${n}: recall p50 ${rpc.p50} / p95 ${rpc.p95} ms; raw Chroma p50 ${raw.p50} ms; split p50 embed ${splitDist.embed!.p50}, chroma ${splitDist.chroma_query!.p50}, rule ${splitDist.rule_channel!.p50}, mark-used ${splitDist.mark_used!.p50}, other ${splitDist.rank_format_other!.p50} ms`,
    );
    if (n === 10_000) target('recall p95 @10k (incl. query embedding)', rpc.p95, 'ms', '<=', 50);
    if (n === 100_000) target('recall p95 @100k (incl. query embedding)', rpc.p95, 'ms', '<=', 100);
    target(`recall overhead vs raw Chroma @${n / 1000}k (p50 ratio)`, ratio, 'x', '<=', 1.5);
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
  const d = dist(starts);
  out.cold_start_ms = d;
  out.rss_idle_mb = idle;
  log(`  cold start ${starts.map((x) => Math.round(x)).join(', ')} ms; idle RSS ${JSON.stringify(idle)}`);
  target('sidecar cold start (spawn to first recall, median)', d.p50, 'ms', '<=', 2000);
  target('sidecar RSS idle (sidecar + embedding worker)', idle?.sidecar_plus_worker, 'MB', '<=', 300);
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
    target('extension-host event-loop lag during Import Chat (max)', undefined, 'ms', '<', 50);
    return;
  }
  const res = JSON.parse(readFileSync(file, 'utf8')) as {
    activationMs: number;
    import: { path: string; lag_ms: { p50: number; p99: number; max: number }; seconds: number };
    learning: { lag_ms: { p50: number; p99: number; max: number } };
  };
  out.editor = res;
  target('extension activation (activate() body)', r2(res.activationMs), 'ms', '<=', 50);
  target(
    `extension-host event-loop lag, Import Chat of ${P.editorSessions * P.editorMessagesPerSession} messages (max)`,
    res.import.lag_ms.max,
    'ms',
    '<',
    50,
  );
  target(
    'extension-host event-loop lag while the sidecar learns from them (max)',
    res.learning.lag_ms.max,
    'ms',
    '<',
    50,
  );
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
    if (only.has('ingest')) await benchIngest(out, loadRss);
    if (only.has('recall')) await benchRecall(out, loadRss);
    if (only.has('footprint')) await benchFootprint(out);
    if (only.has('editor')) await benchEditor(out);
  } finally {
    if (!args['keep-data']) {
      for (const d of dataDirs) cleanupDataDir(d);
      rmSync(TMP, { recursive: true, force: true });
    } else log(`data kept in ${TMP}`);
  }
  if (Object.keys(loadRss).length) {
    out.rss_under_load_mb = loadRss;
    const peak = Math.max(...Object.values(loadRss).map((x) => x.sidecar_plus_worker));
    target('sidecar RSS under load (sidecar + embedding worker, peak)', peak, 'MB', '<=', 300);
  }
  Object.assign(result, out, {
    targets,
    load_average: { start: loadStart, end: os.loadavg().map(r2) },
    minutes: r1((Date.now() - started) / 60_000),
  });

  // The table.
  const rows: [string, string, string, string][] = targets.map((t) => [
    t.metric,
    t.value === undefined ? 'n/a' : `${t.value} ${t.unit}`,
    t.target,
    t.ok === undefined ? 'n/a' : t.ok ? 'PASS' : 'MISS',
  ]);
  const header: [string, string, string, string] = ['metric', 'value', 'target', ''];
  const w = [0, 1, 2].map((i) => Math.max(...[header, ...rows].map((r) => r[i]!.length)));
  console.log(
    `\nMnemo bench  ${String(machine().cpu)} x${os.cpus().length}  node ${process.version}  load ${loadStart.join(' ')}${QUICK ? '  (--quick)' : ''}`,
  );
  for (const r of [header, ...rows])
    console.log(`${r[0].padEnd(w[0]!)}  ${r[1].padStart(w[1]!)}  ${r[2].padEnd(w[2]!)}  ${r[3]}`);
  const rec = out.recall as
    | Record<
        string,
        { over_json_rpc_ms: Dist; raw_chroma_query_ms: Dist; in_process_split_ms: Record<string, Dist> }
      >
    | undefined;
  if (rec) {
    console.log(
      '\nrecall (ms, p50 / p95)     total over JSON-RPC   raw Chroma   embed   chroma   rule   mark-used   other',
    );
    for (const [n, x] of Object.entries(rec)) {
      const s = x.in_process_split_ms;
      const f = (d: Dist | undefined) => `${d?.p50 ?? '-'} / ${d?.p95 ?? '-'}`;
      console.log(
        `  ${n.padStart(6)} memories        ${f(x.over_json_rpc_ms).padEnd(20)}  ${f(x.raw_chroma_query_ms).padEnd(11)}  ${f(s.embed)}  ${f(s.chroma_query)}  ${f(s.rule_channel)}  ${f(s.mark_used)}  ${f(s.rank_format_other)}`,
      );
    }
  }

  const dir = path.join(REPO, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${String(result.date).slice(0, 10)}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(REPO, file)} (${result.minutes} min)`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
