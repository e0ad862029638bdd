/**
 * Local embedding benchmark: load time, sentences/s at batch 1 and 32, single-query latency
 * (p50/p95), resident memory with the model loaded, and a small similarity check in English,
 * Chinese and across the two. Prints a table and writes bench/results/embed-<UTC date>.json.
 *
 *   node --import tsx bench/embed.ts [--model Xenova/all-MiniLM-L6-v2] [--model-path DIR]
 *        [--threads N] [--transport process|thread]
 *
 * Defaults: all-MiniLM-L6-v2 from $MNEMO_TEST_MODEL_DIR or .cache/models (scripts/fetch-model.sh).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { LocalEmbeddingProvider, cosineSimilarity } from '../sidecar/embed/index';

const REPO = path.resolve(__dirname, '..');

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: 'Xenova/all-MiniLM-L6-v2' },
    'model-path': { type: 'string' },
    threads: { type: 'string' },
    transport: { type: 'string', default: 'process' },
    queries: { type: 'string', default: '200' },
  },
});

/** Memory-like sentences, English and Chinese, of typical length. */
const CORPUS_EN = [
  'I always use vim, never suggest nano',
  'Run integration tests with npm run test:sidecar before pushing',
  'The staging database is reset every Monday at 6am',
  'Never force-push to the main branch',
  'Prefer tabs over spaces in Go files',
  'Our team lunch is on Thursdays',
  'Use pnpm, not npm, in the web repository',
  'The flaky test in auth.spec.ts fails when the clock crosses midnight UTC',
];
const CORPUS_ZH = [
  '我总是用 vim,不要推荐 nano',
  '推送之前先运行集成测试',
  '预发布数据库每周一早上六点重置',
  '永远不要强制推送到主分支',
  'Go 文件里用制表符而不是空格',
  '团队午餐在每周四',
  '前端仓库用 pnpm,不要用 npm',
  'auth.spec.ts 里那个不稳定的测试在 UTC 午夜时会失败',
];

/** [a, b] pairs: paraphrases (should be close) and unrelated (should be far). */
const PAIRS = {
  en_paraphrase: [
    ['I always use vim, never suggest nano', 'I prefer vim; do not recommend nano to me'],
    ['Never force-push to the main branch', 'Do not ever force push to main'],
    ['Run the integration tests before pushing', 'Before you push, run the integration tests'],
  ],
  en_unrelated: [
    ['I always use vim, never suggest nano', 'The staging database is reset every Monday at 6am'],
    ['Never force-push to the main branch', 'Our team lunch is on Thursdays'],
    ['Run the integration tests before pushing', 'Prefer tabs over spaces in Go files'],
  ],
  zh_paraphrase: [
    ['我总是用 vim,不要推荐 nano', '我只用 vim 编辑器,别给我推荐 nano'],
    ['永远不要强制推送到主分支', '禁止对 main 分支 force push'],
    ['推送之前先运行集成测试', '在 push 代码前要跑一遍集成测试'],
  ],
  zh_unrelated: [
    ['我总是用 vim,不要推荐 nano', '预发布数据库每周一早上六点重置'],
    ['永远不要强制推送到主分支', '团队午餐在每周四'],
    ['推送之前先运行集成测试', 'Go 文件里用制表符而不是空格'],
  ],
  cross_translation: [
    ['I always use vim, never suggest nano', '我总是用 vim,不要推荐 nano'],
    ['Never force-push to the main branch', '永远不要强制推送到主分支'],
    ['Run the integration tests before pushing', '推送之前先运行集成测试'],
  ],
  cross_unrelated: [
    ['I always use vim, never suggest nano', '预发布数据库每周一早上六点重置'],
    ['Never force-push to the main branch', '团队午餐在每周四'],
    ['Run the integration tests before pushing', 'Go 文件里用制表符而不是空格'],
  ],
} as const;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

async function main(): Promise<void> {
  const modelPath =
    args['model-path'] ??
    path.resolve(process.env['MNEMO_TEST_MODEL_DIR'] || path.join(REPO, '.cache', 'models'));
  const transport = args.transport === 'thread' ? 'thread' : 'process';
  const provider = new LocalEmbeddingProvider({
    model: args.model,
    modelPath,
    allowRemote: false,
    transport,
    log: () => {},
    ...(args.threads ? { threads: Number(args.threads) } : {}),
  });
  const rssBefore = process.memoryUsage().rss;
  try {
    const t0 = performance.now();
    await provider.ready();
    const loadMs = performance.now() - t0;

    // Warm-up.
    await provider.embed(CORPUS_EN.slice(0, 4));

    // Batch 1: one sentence per call.
    const mixed = [...CORPUS_EN, ...CORPUS_ZH];
    const n1 = 64;
    let t = performance.now();
    for (let i = 0; i < n1; i++) await provider.embed([mixed[i % mixed.length]!]);
    const batch1PerSec = n1 / ((performance.now() - t) / 1000);

    // Batch 32.
    const big = Array.from({ length: 256 }, (_, i) => `${mixed[i % mixed.length]!} #${i}`);
    t = performance.now();
    for (let i = 0; i < big.length; i += 32) await provider.embed(big.slice(i, i + 32));
    const batch32PerSec = big.length / ((performance.now() - t) / 1000);

    // Single-query latency as the recall path sees it (a short question).
    const queries = [
      'which editor should you use?',
      '我应该用什么编辑器?',
      'how do I run the tests?',
      '主分支可以强推吗?',
    ];
    const lat: number[] = [];
    const nq = Number(args.queries);
    for (let i = 0; i < nq; i++) {
      const q0 = performance.now();
      await provider.embed([queries[i % queries.length]!]);
      lat.push(performance.now() - q0);
    }
    lat.sort((a, b) => a - b);

    const mem = await provider.workerMemory();
    const sidecarRss = process.memoryUsage().rss;

    const similarity: Record<string, { mean: number; values: number[] }> = {};
    for (const [name, pairs] of Object.entries(PAIRS)) {
      const flat = pairs.flatMap((p) => [p[0], p[1]]);
      const vs = await provider.embed(flat);
      const values = pairs.map((_, i) => r3(cosineSimilarity(vs[2 * i]!, vs[2 * i + 1]!)));
      similarity[name] = { mean: r3(values.reduce((a, b) => a + b, 0) / values.length), values };
    }

    const result = {
      date: new Date().toISOString(),
      model: provider.modelId,
      loaded_from: provider.loadedFrom,
      dimension: provider.dimension(),
      transport,
      threads: args.threads ? Number(args.threads) : Math.max(1, Math.floor(os.availableParallelism() / 2)),
      machine: {
        cpus: os.cpus().length,
        cpu: os.cpus()[0]?.model ?? '',
        node: process.version,
        platform: `${os.platform()} ${os.arch()}`,
      },
      load_ms: Math.round(loadMs),
      sentences_per_s_batch1: Math.round(batch1PerSec * 10) / 10,
      sentences_per_s_batch32: Math.round(batch32PerSec * 10) / 10,
      query_latency_ms: { p50: r3(percentile(lat, 50)), p95: r3(percentile(lat, 95)), n: nq },
      rss_mb: {
        sidecar_before_load: mb(rssBefore),
        sidecar_after_load: mb(sidecarRss),
        worker: transport === 'process' ? mb(mem.rss) : null,
        total: transport === 'process' ? mb(sidecarRss + mem.rss) : mb(sidecarRss),
      },
      similarity,
    };

    const rows: [string, string][] = [
      ['model', `${result.model} (${result.loaded_from?.dtype}, dim ${result.dimension})`],
      ['transport / threads', `${transport} / ${result.threads}`],
      ['load (ms)', String(result.load_ms)],
      ['sentences/s, batch 1', String(result.sentences_per_s_batch1)],
      ['sentences/s, batch 32', String(result.sentences_per_s_batch32)],
      ['query latency p50 / p95 (ms)', `${result.query_latency_ms.p50} / ${result.query_latency_ms.p95}`],
      ['RSS sidecar (MB)', String(result.rss_mb.sidecar_after_load)],
      ['RSS worker (MB)', String(result.rss_mb.worker ?? '(same process)')],
      ...Object.entries(similarity).map(([k, v]): [string, string] => [
        `cosine ${k}`,
        `${v.mean} (${v.values.join(', ')})`,
      ]),
    ];
    const w = Math.max(...rows.map((r) => r[0].length));
    for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);

    const dir = path.join(REPO, 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `embed-${result.date.slice(0, 10)}.json`);
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`\nwrote ${path.relative(REPO, file)}`);
  } finally {
    await provider.dispose();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
