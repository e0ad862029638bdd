/**
 * Bulk embedding benchmark (not part of the tests): the local provider on generated memory texts
 * (bench/lib/generate.ts), before against after in alternating rounds, so that other work on the machine
 * skews both alike:
 *   - `before`: one intra-op thread, batches of 32 in the given order, one batch at a time (what a bulk job
 *     got before the bulk mode);
 *   - `bulk_<n>`: the default threads (two on 2 cores) and `{ bulk: true }`: shortest texts first, batches
 *     of n, all sent at once.
 * For each: texts/s, the latency of a question asked every 50 ms during the job, and the worker's RSS
 * (idle, after the job). Prints a table and writes bench/results/bulk-embed-<UTC time>.json.
 *
 *   node --import tsx bench/bulkEmbed.ts [--texts 1000] [--rounds 2] [--batches 32,64,128]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { LocalEmbeddingProvider } from '../sidecar/embed/index';
import { memoryTexts, QUERIES } from './lib/generate';

const REPO = path.resolve(__dirname, '..');
const { values: args } = parseArgs({
  options: {
    texts: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '2' },
    batches: { type: 'string', default: '32,64,128' },
  },
});

const r1 = (x: number): number => Math.round(x * 10) / 10;
const mb = (bytes: number): number => r1(bytes / 1024 / 1024);
function pct(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((q / 100) * sorted.length) - 1))] ?? 0;
}

interface Row {
  texts_per_s: number;
  question_p50_ms: number;
  question_p95_ms: number;
  questions: number;
  worker_idle_mb: number;
  worker_after_mb: number;
}

async function measure(texts: string[], name: string, batch: number): Promise<Row> {
  const before = name === 'before';
  const p = new LocalEmbeddingProvider({
    model: 'Xenova/all-MiniLM-L6-v2',
    modelPath: path.resolve(process.env['MNEMO_TEST_MODEL_DIR'] || path.join(REPO, '.cache', 'models')),
    allowRemote: false,
    log: () => {},
    idleUnloadMs: 0,
    bulkBatchSize: batch,
    ...(before ? { threads: 1 } : {}),
  });
  try {
    await p.embed(texts.slice(0, 8));
    const idle = (await p.workerMemory()).rss;
    let done = false;
    const t0 = performance.now();
    const job = (
      before
        ? (async () => {
            for (let i = 0; i < texts.length; i += 32) await p.embed(texts.slice(i, i + 32), { bulk: false });
          })()
        : p.embed(texts, { bulk: true })
    ).finally(() => (done = true));
    const lat: number[] = [];
    const asking = (async () => {
      for (let i = 0; !done; i++) {
        const q0 = performance.now();
        await p.embed([QUERIES[i % QUERIES.length]!]);
        if (!done) lat.push(performance.now() - q0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await job;
    const sec = (performance.now() - t0) / 1000;
    await asking;
    const afterRss = (await p.workerMemory()).rss;
    lat.sort((a, b) => a - b);
    return {
      texts_per_s: r1(texts.length / sec),
      question_p50_ms: r1(pct(lat, 50)),
      question_p95_ms: r1(pct(lat, 95)),
      questions: lat.length,
      worker_idle_mb: mb(idle),
      worker_after_mb: mb(afterRss),
    };
  } finally {
    await p.dispose();
  }
}

async function main(): Promise<void> {
  const texts = memoryTexts(Number(args.texts), 99);
  const configs: [string, number][] = [
    ['before', 32],
    ...args.batches.split(',').map((b): [string, number] => [`bulk_${b}`, Number(b)]),
  ];
  const loadStart = os.loadavg().map(r1);
  const rows: Record<string, Row[]> = {};
  for (let round = 0; round < Number(args.rounds); round++)
    for (const [name, batch] of configs) (rows[name] ??= []).push(await measure(texts, name, batch));
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '', node: process.version },
    load_average: { start: loadStart, end: os.loadavg().map(r1) },
    texts: texts.length,
    rows,
  };
  for (const [name, rs] of Object.entries(rows))
    console.log(
      `${name.padEnd(9)} ${rs.map((r) => r.texts_per_s).join(' / ')} texts/s; question during the job p50 ${rs.map((r) => r.question_p50_ms).join(' / ')} ms, p95 ${rs.map((r) => r.question_p95_ms).join(' / ')} ms; worker RSS idle ${rs.map((r) => r.worker_idle_mb).join(' / ')} MB, after ${rs.map((r) => r.worker_after_mb).join(' / ')} MB`,
    );
  console.log(`load average ${result.load_average.start.join(' ')} -> ${result.load_average.end.join(' ')}`);
  const dir = path.join(REPO, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `bulk-embed-${result.date.replace(/[-:.]/g, '').slice(0, 15)}Z.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote ${path.relative(REPO, file)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
