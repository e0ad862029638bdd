/**
 * Where a 50-turn session's ingest spends its time, in process (the service code as the CLI runs it, on a
 * real Chroma and the real model; not part of the tests):
 *
 *   MNEMO_TEST_MODEL_DIR=/work/main/.cache/models node --import tsx bench/ingestProfile.ts [sessions]
 *
 * The sessions are the bench's (`bench/lib/generate.ts`, the same seed as `npm run bench`'s ingest
 * section, after the same warm-up session). Every embedding call and every store round trip is timed as
 * an interval; the pure stages (redaction, rules) are timed by running them alone on the same session.
 * Prints, per phase, the total per session (p50 over the sessions), the calls per session and the texts
 * embedded per session.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EmbeddingProvider } from '../sidecar/embed/types';
import { analyzeSession } from '../sidecar/pipeline/index';
import { redactSession } from '../sidecar/pipeline/redact';
import { inProcessService } from '../test/support/sidecarSession';
import { prng, session } from './lib/generate';
import { timeMethod, type Span } from './lib/timing';

const SESSIONS = Number(process.argv[2] ?? 6);
const PROJECT = 'bench-project';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : 0;
};
const r1 = (x: number): number => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mnemo-ingest-profile-'));
  const svc = inProcessService(dataDir);
  try {
    await svc.start();
    await svc.requireModel();
    const spans: Span[] = [];
    const emb = svc.embedding as EmbeddingProvider;
    timeMethod(emb, 'embed', 'embed', spans);
    timeMethod(svc.store, 'get', 'memories get', spans);
    timeMethod(svc.store, 'queryMany', 'memories dedup query', spans);
    timeMethod(svc.store, 'upsert', 'memories upsert (+ lexical)', spans);
    timeMethod(svc.store, 'updateFields', 'memories update', spans);
    timeMethod(svc.store, 'exclusiveWrite', 'store stage (in write.lock)', spans);
    timeMethod(svc.store.lexical, 'add', 'lexical index write', spans);
    timeMethod(svc.episodes, 'get', 'episodes get', spans);
    timeMethod(svc.episodes, 'upsert', 'episodes upsert (+ lexical)', spans);
    timeMethod(svc.audit, 'append', 'audit append', spans);
    const r = prng(2026);
    await svc.ingest({ ...session(r, 50, PROJECT, -1), explain: false }); // warm-up, as the bench does
    spans.length = 0;
    const rows: Record<string, { ms: number[]; calls: number[]; items: number[] }> = {};
    const add = (what: string, ms: number, calls: number, items: number): void => {
      const row = (rows[what] ??= { ms: [], calls: [], items: [] });
      row.ms.push(ms);
      row.calls.push(calls);
      row.items.push(items);
    };
    for (let i = 0; i < SESSIONS; i++) {
      const s = { ...session(r, 50, PROJECT, i), explain: false };
      // The pure stages alone on the same session (ingest runs them the same way).
      let t0 = performance.now();
      const redacted = (await redactSession(s)).session;
      add('redactSession (whole session)', performance.now() - t0, 1, s.messages.length);
      t0 = performance.now();
      const analysis = await analyzeSession(redacted, { clock: () => new Date() });
      add(
        'analyzeSession (normalize, redact, rules, score)',
        performance.now() - t0,
        1,
        analysis.candidates.length,
      );
      spans.length = 0;
      t0 = performance.now();
      const rep = await svc.ingest(s);
      const total = performance.now() - t0;
      add('ingest total', total, 1, rep.stored + rep.refreshed + rep.pending);
      const by = new Map<string, Span[]>();
      for (const sp of spans) by.set(sp.what, [...(by.get(sp.what) ?? []), sp]);
      for (const [what, xs] of by)
        add(
          what,
          xs.reduce((a, x) => a + (x.t1 - x.t0), 0),
          xs.length,
          xs.reduce((a, x) => a + (x.n ?? 0), 0),
        );
      const embeds = by.get('embed') ?? [];
      console.log(
        `session ${i}: ${r1(total)} ms; stored ${rep.stored}, refreshed ${rep.refreshed}, pending ${rep.pending}, dropped ${rep.dropped}, episodes ${rep.episodes}; embed calls ${embeds.map((e) => `${e.n} texts ${r1(e.t1 - e.t0)} ms`).join(', ')}`,
      );
    }
    console.log(`\nper session, p50 over ${SESSIONS} sessions:`);
    console.log('phase | ms | calls | items');
    for (const [what, row] of Object.entries(rows))
      console.log(`${what} | ${r1(median(row.ms))} | ${median(row.calls)} | ${median(row.items)}`);
  } finally {
    await svc.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
