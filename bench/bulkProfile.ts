/**
 * Where a bulk import's wall time goes (not part of the tests): `mnemo/memory/import`'s code in process
 * (`MnemoService.bulkImport`, as the CLI runs it) on a fresh data folder, with the embedder, the store's
 * reads, dedup queries, Chroma upserts, lexical index writes and the audit timed as intervals. Prints per
 * part: the calls, the summed time, the wall time it covers (overlapping calls count once) and how much of
 * it overlaps the embedding; then the wall time no part covers (redaction, dedup decisions, the rest), and
 * the peak RSS of the process and of the embedding worker.
 *
 *   node --import tsx bench/bulkProfile.ts [--memories 2000]
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { LocalEmbeddingProvider } from '../sidecar/embed/index';
import { cleanupDataDir, inProcessService } from '../test/support/sidecarSession';
import { memoryTexts } from './lib/generate';
import { timeMethod, type Span } from './lib/timing';

const { values: args } = parseArgs({ options: { memories: { type: 'string', default: '2000' } } });
const N = Number(args.memories);
const r1 = (x: number): number => Math.round(x * 10) / 10;

const spans: Span[] = [];
const time = <T extends object>(obj: T, name: keyof T & string, what: string): void =>
  timeMethod(obj, name, what, spans);

/** The merged intervals of some spans. */
function merged(xs: Span[]): [number, number][] {
  const out: [number, number][] = [];
  for (const s of [...xs].sort((a, b) => a.t0 - b.t0)) {
    const last = out[out.length - 1];
    if (last && s.t0 <= last[1]) last[1] = Math.max(last[1], s.t1);
    else out.push([s.t0, s.t1]);
  }
  return out;
}
const length = (iv: [number, number][]): number => iv.reduce((n, [a, b]) => n + b - a, 0);
function intersect(a: [number, number][], b: [number, number][]): number {
  let n = 0;
  for (const [a0, a1] of a) for (const [b0, b1] of b) n += Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
  return n;
}

/** CPU seconds (user + system) a process has used so far; 0 when it is gone. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}
const rssMb = (pid: number | undefined): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mnemo-bulkprof-'));
  const svc = inProcessService(dataDir);
  try {
    await svc.start();
    await svc.requireModel();
    const texts = memoryTexts(N, 99);
    // A first memory creates the collection and warms redaction (secretlint) and the lexical index.
    await svc.bulkImport([{ text: 'The bench warms up here.', project_id: 'bench-warm' }]);
    time(svc.embedding, 'embed', 'embed');
    time(svc.store, 'read', 'get by id');
    time(svc.store, 'queryMany', 'dedup query');
    time(svc.store.lexical, 'add', 'lexical write');
    time(svc.store, 'upsert', 'upsert (Chroma + lexical)');
    time(svc.audit, 'append', 'audit');
    time(svc.store, 'exclusiveWrite', 'locked dedup + store');
    const worker = svc.embedding instanceof LocalEmbeddingProvider ? svc.embedding : undefined;
    const pids = {
      sidecar: process.pid,
      worker: (await worker?.workerMemory())?.pid,
      chroma: svc.supervisor.childPid,
    };
    const peak = { sidecar: 0, worker: 0, chroma: 0 };
    let atPeak = process.memoryUsage();
    const sample = (): void => {
      const m = process.memoryUsage();
      if (m.rss > atPeak.rss) atPeak = m;
      for (const k of Object.keys(pids) as (keyof typeof pids)[]) peak[k] = Math.max(peak[k], rssMb(pids[k]));
    };
    const before = { rss: rssMb(pids.sidecar), worker: rssMb(pids.worker), chroma: rssMb(pids.chroma) };
    const heap0 = process.memoryUsage();
    sample();
    const sampling = setInterval(sample, 100);
    const cpu0 = Object.values(pids).map(cpuSeconds);
    const t0 = performance.now();
    const res = await svc.bulkImport(texts.map((text) => ({ text, project_id: 'bench' })));
    const t1 = performance.now();
    clearInterval(sampling);
    sample();
    const cpu = Object.values(pids).map((p, i) => r1(cpuSeconds(p) - cpu0[i]!));
    const wall = t1 - t0;
    console.log(`${N} memories in ${r1(wall / 1000)} s = ${r1(N / (wall / 1000))}/s ${JSON.stringify(res)}`);
    console.log(`load average ${os.loadavg().map(r1).join(' ')}`);
    const embed = merged(spans.filter((s) => s.what === 'embed'));
    const parts = [...new Set(spans.map((s) => s.what))];
    console.log('part                          calls   sum ms  wall ms  wall %  overlaps embed ms');
    for (const p of parts) {
      const xs = spans.filter((s) => s.what === p);
      const iv = merged(xs);
      const sum = xs.reduce((n, s) => n + s.t1 - s.t0, 0);
      console.log(
        `${p.padEnd(28)} ${String(xs.length).padStart(6)} ${String(Math.round(sum)).padStart(8)} ${String(
          Math.round(length(iv)),
        ).padStart(8)} ${String(r1((100 * length(iv)) / wall)).padStart(7)} ${String(
          p === 'embed' ? '' : Math.round(intersect(iv, embed)),
        ).padStart(18)}`,
      );
    }
    const covered = length(merged(spans.filter((s) => s.what !== 'locked dedup + store')));
    console.log(`not in any part (redaction, dedup decisions, the rest): ${Math.round(wall - covered)} ms`);
    const mbOf = (m: NodeJS.MemoryUsage): string =>
      `rss ${r1(m.rss / 2 ** 20)}, heap ${r1(m.heapUsed / 2 ** 20)} of ${r1(m.heapTotal / 2 ** 20)}, external ${r1(
        m.external / 2 ** 20,
      )} (array buffers ${r1(m.arrayBuffers / 2 ** 20)})`;
    console.log(`this process before the import: ${mbOf(heap0)}; at its RSS peak: ${mbOf(atPeak)}`);
    console.log(
      `RSS MB before the import: sidecar ${r1(before.rss)}, worker ${r1(before.worker)}, Chroma ${r1(before.chroma)}`,
    );
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) {
      gc();
      console.log(`after the import and a full GC: ${mbOf(process.memoryUsage())}`);
    }
    console.log(`CPU s during the import: sidecar ${cpu[0]}, worker ${cpu[1]}, Chroma ${cpu[2]}`);
    console.log(
      `peak RSS MB: sidecar ${r1(peak.sidecar)}, worker ${r1(peak.worker)}, Chroma ${r1(peak.chroma)}, sum of peaks ${r1(peak.sidecar + peak.worker + peak.chroma)}`,
    );
  } finally {
    await svc.dispose();
    cleanupDataDir(dataDir);
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
