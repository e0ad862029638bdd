/**
 * The capture section of `npm run bench` (issue 32): realistic coding-agent sessions
 * (bench/lib/agentSessions.ts) written as Claude Code transcripts — 2,000 sessions, ~100k messages, ~190 MB
 * of JSONL (`--quick`: 100 sessions) — backfilled through `mnemo/sources/capture` by the real sidecar, its
 * Chroma and model: messages per second over the whole request and the sidecar's peak RSS beside it. Then
 * the sidecar watches the agent (`mnemo/sources/configure`) and a new turn is appended to a session file five
 * times: how long until recall returns it.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import {
  ProgressNotification,
  RecallRequest,
  SourcesCaptureRequest,
  SourcesConfigureRequest,
} from '../sidecar/protocol';
import type { SidecarSession } from '../test/support/sidecarSession';
import { agentSessions, writeClaudeCode } from './lib/agentSessions';

/** What run.ts lends the section (its helpers and the targets table). */
export interface CaptureBenchDeps {
  quick: boolean;
  log(line: string): void;
  freshDataDir(name: string): string;
  startSidecar(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ s: SidecarSession }>;
  peakRss(s: SidecarSession): {
    stop(): {
      sidecar: number;
      worker: number;
      chroma: number;
      all: number;
      cpu: { sidecar: number; worker: number; chroma: number };
    };
  };
  target(metric: string, value: number | undefined, unit: string, op: '<=' | '>=' | '<', limit: number): void;
}

export async function benchCapture(out: Record<string, unknown>, d: CaptureBenchDeps): Promise<void> {
  const sessions = d.quick ? 100 : 2000;
  const root = d.freshDataDir('capture-home');
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work', 'shop');
  mkdirSync(cwd, { recursive: true });
  const generated = agentSessions(sessions, 50, cwd, 3232);
  const messages = generated.reduce((n, s) => n + s.messages.length, 0);
  const bytes = writeClaudeCode(home, generated);
  d.log(
    `capture: ${sessions} Claude Code sessions, ${messages} messages, ${(bytes / 1e6).toFixed(0)} MB of JSONL`,
  );
  const { s } = await d.startSidecar(d.freshDataDir('capture'), { HOME: home });
  try {
    let last = 0;
    s.conn.onNotification(ProgressNotification, (p) => {
      if (p.token === 'capture' && (p.percent ?? 0) >= last + 10) {
        last = p.percent ?? 0;
        d.log(`  ${p.message}`);
      }
    });
    const sampler = d.peakRss(s);
    const t0 = performance.now();
    const r = await s.request(SourcesCaptureRequest, {
      folders: [cwd],
      sources: ['claude-code'],
      progress_token: 'capture',
    });
    const sec = (performance.now() - t0) / 1000;
    const rss = sampler.stop();
    const cc = r.sources[0]!;
    const perSec = Math.round((cc.messages / sec) * 10) / 10;
    d.log(
      `  backfill: ${cc.messages} messages in ${sec.toFixed(1)} s = ${perSec} msg/s; ${cc.stored} stored, ${cc.pending} pending, ${cc.dropped} dropped; peak RSS sidecar ${rss.sidecar} MB, worker ${rss.worker} MB, Chroma ${rss.chroma} MB`,
    );
    d.log(
      `  CPU seconds: sidecar ${rss.cpu.sidecar}, embedding worker ${rss.cpu.worker}, Chroma ${rss.cpu.chroma} (2 cores give ${(2 * sec).toFixed(1)})`,
    );
    d.target('capture backfill', perSec, 'msg/s', '>=', 300);
    d.target('capture backfill: sidecar peak RSS', rss.sidecar, 'MB', '<=', 450);

    // Incremental: the sidecar watches the agent; a new turn appended to a session file, until recall returns it.
    await s.request(SourcesConfigureRequest, {
      folders: [cwd],
      enabled: { claudeCode: true },
      paused: false,
      exclude_globs: [],
    });
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const target = generated[i * 7]!;
      const file = path.join(
        home,
        '.claude',
        'projects',
        cwd.replace(/[^A-Za-z0-9]/g, '-'),
        `${target.id}.jsonl`,
      );
      const word = `zephyr${i}quartz${Date.now().toString(36)}`;
      const base = { cwd, sessionId: target.id, isSidechain: false, timestamp: new Date().toISOString() };
      const t1 = performance.now();
      const logged = s.logs.length;
      appendFileSync(
        file,
        JSON.stringify({
          ...base,
          type: 'user',
          uuid: `inc-u${i}-${word}`,
          message: { role: 'user', content: `We decided the ${word} cache keeps entries for 90 seconds.` },
        }) +
          '\n' +
          JSON.stringify({
            ...base,
            type: 'assistant',
            uuid: `inc-a${i}-${word}`,
            message: {
              id: `msg_inc${i}${word}`,
              role: 'assistant',
              content: [{ type: 'text', text: `Set the ${word} cache TTL to 90 seconds.` }],
            },
          }) +
          '\n',
      );
      const asked: number[] = [];
      await s.waitFor(
        'the new turn in recall',
        async () => {
          const q0 = performance.now();
          const r = await s.request(RecallRequest, {
            query: `${word} cache`,
            project_ids: cc.projects,
            mark_used: false,
          });
          asked.push(performance.now() - q0);
          return r.items.some((it) => it.memory.text.includes(word));
        },
        60_000,
      );
      latencies.push((performance.now() - t1) / 1000);
      // A slow one: how long the recalls asked meanwhile took, and what the sidecar logged meanwhile.
      if (performance.now() - t1 > 5000) {
        d.log(
          `    ${asked.length} recalls while waiting, the slowest ${Math.round(Math.max(...asked))} ms; the sidecar logged:`,
        );
        for (const l of s.logs.slice(logged, logged + 30)) d.log(`    sidecar ${l.level}: ${l.message}`);
      }
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const p50 = Math.round(sorted[2]! * 100) / 100;
    const max = Math.round(sorted[4]! * 100) / 100;
    d.log(`  a new turn visible in recall after ${sorted.map((x) => x.toFixed(2)).join(', ')} s`);
    d.target('capture: new turn visible in recall (max of 5)', max, 's', '<=', 5);
    out.capture = {
      sessions,
      messages: cc.messages,
      generated_messages: messages,
      jsonl_mb: Math.round(bytes / 1e5) / 10,
      seconds: Math.round(sec * 100) / 100,
      messages_per_s: perSec,
      outcome: {
        stored: cc.stored,
        refreshed: cc.refreshed,
        pending: cc.pending,
        dropped: cc.dropped,
        skipped: cc.skipped,
        injected: cc.injected,
        queued: cc.queued,
      },
      peak_rss_mb: rss,
      new_turn_visible_s: { p50, max, all: latencies.map((x) => Math.round(x * 100) / 100) },
    };
  } finally {
    await s.stop();
  }
}
