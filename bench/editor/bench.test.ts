/**
 * The editor part of `npm run bench` (bench/run.ts runs it through test/editor/run.mjs --suite bench/editor):
 * inside the real extension host, reads Mnemo's activation time (the API's activationMs) and measures the
 * extension host's event-loop lag (perf_hooks.monitorEventLoopDelay) while Import Chat imports a
 * 10k-message VS Code chat export, then while the sidecar learns from it in the background (memories
 * changed notifications refresh the views). Writes bench-editor.json next to the harness's results.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { MnemoApi } from '../../src/api';
import { BuiltinCommand } from '../../src/commandIds';
import { parseChatJson } from '../../src/capture/chatExport';
import { CaptureSessionRequest } from '../../sidecar/protocol';
import { loadRunConfig } from '../../test/editor/suite/harness';
import { chatExport } from '../lib/generate';
import { StallMonitor, type StallSummary } from './stalls';

// mocha's globals, provided by the editor harness's runner (this folder is type-checked with the root tsconfig).
declare function describe(name: string, fn: () => void): void;
declare function it(name: string, fn: () => Promise<void>): void;

const TEST_MODEL = 'Xenova/all-MiniLM-L6-v2';

/**
 * Runs `fn` with the lag histogram and a stall monitor running and, when `dir` is given, under a CPU profile of
 * the extension host (in-process inspector, 1 ms sampling) written as `<name>.cpuprofile` into `dir` after
 * both stopped. Returns the stalls (gaps over 50 ms, split into on-CPU and waiting for a CPU).
 */
async function measured(
  lag: IntervalHistogram,
  dir: string | undefined,
  name: string,
  fn: () => Promise<void>,
): Promise<StallSummary> {
  const stalls = new StallMonitor(50);
  const session = dir ? new inspector.Session() : undefined;
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session!.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  if (session) {
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 1000 });
    await post('Profiler.start');
  }
  lag.enable();
  stalls.start();
  let summary: StallSummary;
  try {
    await fn();
  } finally {
    summary = stalls.stop();
    lag.disable();
    if (session) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      fs.mkdirSync(dir!, { recursive: true });
      fs.writeFileSync(path.join(dir!, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    }
  }
  return summary;
}

function lagOf(h: IntervalHistogram): { p50: number; p99: number; max: number; mean: number } {
  const ms = (ns: number) => Math.round((ns / 1e6) * 100) / 100;
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), mean: ms(h.mean) };
}

describe('bench', () => {
  it('activation time and event-loop lag during Import Chat', async () => {
    const cfg = loadRunConfig();
    const opts = JSON.parse(process.env.MNEMO_BENCH_EDITOR ?? '{}') as {
      sessions?: number;
      messagesPerSession?: number;
      learnSeconds?: number;
      /** A folder: CPU profiles of the extension host during the import and the learning go there. */
      profileDir?: string;
      /** Keep the Mnemo side bar closed (default: open, Memories and Review Queue visible, as a user watching). */
      hideViews?: boolean;
    };
    const sessions = opts.sessions ?? 200;
    const perSession = opts.messagesPerSession ?? 50;
    const learnSeconds = opts.learnSeconds ?? 120;
    const ext = vscode.extensions.getExtension<MnemoApi>(cfg.expectedExtensionId);
    assert.ok(ext, `${cfg.expectedExtensionId} is not installed`);
    const wasActive = ext.isActive;
    const api = await ext.activate();
    const activationMs = api.activationMs;

    // The repository's test model, as the editor tests do (nothing is downloaded).
    const modelDir =
      process.env.MNEMO_TEST_MODEL_DIR ?? path.join(cfg.extensionDevelopmentPath, '.cache', 'models');
    const settings = vscode.workspace.getConfiguration('mnemo');
    await settings.update('review.dailyDigest', false, vscode.ConfigurationTarget.Global);
    await settings.update('capture.terminal.enabled', false, vscode.ConfigurationTarget.Global);
    await settings.update('embedding.provider', 'local', vscode.ConfigurationTarget.Global);
    await settings.update('embedding.model', TEST_MODEL, vscode.ConfigurationTarget.Global);
    await settings.update('embedding.modelPath', modelDir, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('mnemo.restartSidecar');
    await api.ready(120_000);
    for (let i = 0; i < 600 && api.status()?.message !== 'Mnemo is ready.'; i++)
      await new Promise((r) => setTimeout(r, 100));

    // The Mnemo side bar open: the views are what reloads on every change while the sidecar learns.
    if (!opts.hideViews) {
      await vscode.commands.executeCommand(BuiltinCommand.showMnemoContainer);
      await vscode.commands.executeCommand(BuiltinCommand.focusReview);
      await vscode.commands.executeCommand(BuiltinCommand.focusMemories);
    }

    const file = path.join(os.tmpdir(), `mnemo-bench-chat-${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify(chatExport(4242, sessions, perSession)));
    const messages = parseChatJson(JSON.parse(fs.readFileSync(file, 'utf8'))).reduce(
      (n, s) => n + s.messages.length,
      0,
    );

    // 1. Import Chat (the command; its project picker is answered by accepting the first item, the folder).
    const importLag = monitorEventLoopDelay({ resolution: 10 });
    let via = 'mnemo.importChat command';
    let summary: unknown;
    const load = (): number[] => os.loadavg().map((n) => Math.round(n * 100) / 100);
    const loadAtImport = load();
    const t0 = performance.now();
    const importStalls = await measured(importLag, opts.profileDir, 'import', async () => {
      const run = Promise.resolve(vscode.commands.executeCommand('mnemo.importChat', vscode.Uri.file(file)));
      let done = false;
      void run.finally(() => (done = true)).catch(() => undefined);
      const queuedBefore = api.status()?.queued ?? 0;
      for (let i = 0; i < 50 && !done; i++) {
        await new Promise((r) => setTimeout(r, 200));
        if (!done && (api.status()?.queued ?? 0) <= queuedBefore)
          await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      }
      const answered = done || (api.status()?.queued ?? 0) > queuedBefore;
      if (!answered) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      if (answered) summary = await run;
      else {
        // The picker could not be answered: the same path without the UI (what importChatFiles does per session).
        via = 'capture path (mnemo/capture/session per session, as importChatFiles)';
        const project = api.projects().find((p) => p.projectId !== 'global')!.projectId;
        for (const [i, s] of parseChatJson(JSON.parse(fs.readFileSync(file, 'utf8'))).entries()) {
          await api.request(CaptureSessionRequest, {
            project_id: project,
            source_type: 'import',
            messages: s.messages,
            source_ref: [`bench:${i}`],
            session_id: s.session_id,
          });
        }
      }
    });
    const importSeconds = (performance.now() - t0) / 1000;

    // 2. The sidecar learns from the queued sessions in the background (bounded window).
    const learnLag = monitorEventLoopDelay({ resolution: 10 });
    const loadAtLearning = load();
    const t1 = performance.now();
    const queuedAtStart = api.status()?.queued;
    const learnStalls = await measured(learnLag, opts.profileDir, 'learning', async () => {
      while ((performance.now() - t1) / 1000 < learnSeconds) {
        await new Promise((r) => setTimeout(r, 500));
        if (api.status()?.queued === 0 && performance.now() - t1 > 2000) break;
      }
    });
    const learnSecondsUsed = (performance.now() - t1) / 1000;

    const result = {
      activationMs,
      activated_by_bench: !wasActive,
      views_open: !opts.hideViews,
      import: {
        path: via,
        file_messages: messages,
        sessions,
        seconds: Math.round(importSeconds * 100) / 100,
        lag_ms: lagOf(importLag),
        stalls: importStalls,
        summary,
      },
      learning: {
        window_seconds: Math.round(learnSecondsUsed),
        queued_at_start: queuedAtStart,
        queued_at_end: api.status()?.queued,
        lag_ms: lagOf(learnLag),
        stalls: learnStalls,
      },
      host: {
        node: process.versions.node,
        vscode: vscode.version,
        cpus: os.cpus().length,
        // 1, 5 and 15 minute load averages when each phase started and when the bench ended.
        load: { import: loadAtImport, learning: loadAtLearning, end: load() },
      },
    };
    fs.writeFileSync(
      path.join(path.dirname(cfg.resultsPath), 'bench-editor.json'),
      JSON.stringify(result, null, 2),
    );
    fs.rmSync(file, { force: true });
    console.log(`[bench] ${JSON.stringify(result)}`);
  });
});
