/**
 * The editor part of `npm run bench` (bench/run.ts runs it through test/editor/run.mjs --suite bench/editor):
 * inside the real extension host, reads Mnemo's activation time (the API's activationMs) and measures the
 * extension host's event-loop lag (perf_hooks.monitorEventLoopDelay) while Import Chat imports a
 * 10k-message VS Code chat export, then while the sidecar learns from it in the background (memories
 * changed notifications refresh the views). Writes bench-editor.json next to the harness's results.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { MnemoApi } from '../../src/api';
import { parseChatJson } from '../../src/capture/chatExport';
import { CaptureSessionRequest } from '../../sidecar/protocol';
import { loadRunConfig } from '../../test/editor/suite/harness';
import { chatExport } from '../lib/generate';

// mocha's globals, provided by the editor harness's runner (this folder is type-checked with the root tsconfig).
declare function describe(name: string, fn: () => void): void;
declare function it(name: string, fn: () => Promise<void>): void;

const TEST_MODEL = 'Xenova/all-MiniLM-L6-v2';

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

    const file = path.join(os.tmpdir(), `mnemo-bench-chat-${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify(chatExport(4242, sessions, perSession)));
    const messages = parseChatJson(JSON.parse(fs.readFileSync(file, 'utf8'))).reduce(
      (n, s) => n + s.messages.length,
      0,
    );

    // 1. Import Chat (the command; its project picker is answered by accepting the first item, the folder).
    const importLag = monitorEventLoopDelay({ resolution: 10 });
    importLag.enable();
    const t0 = performance.now();
    let via = 'mnemo.importChat command';
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
    let summary: unknown;
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
    const importSeconds = (performance.now() - t0) / 1000;
    importLag.disable();

    // 2. The sidecar learns from the queued sessions in the background (bounded window).
    const learnLag = monitorEventLoopDelay({ resolution: 10 });
    learnLag.enable();
    const t1 = performance.now();
    const queuedAtStart = api.status()?.queued;
    while ((performance.now() - t1) / 1000 < learnSeconds) {
      await new Promise((r) => setTimeout(r, 500));
      if (api.status()?.queued === 0 && performance.now() - t1 > 2000) break;
    }
    learnLag.disable();
    const learnSecondsUsed = (performance.now() - t1) / 1000;

    const result = {
      activationMs,
      activated_by_bench: !wasActive,
      import: {
        path: via,
        file_messages: messages,
        sessions,
        seconds: Math.round(importSeconds * 100) / 100,
        lag_ms: lagOf(importLag),
        summary,
      },
      learning: {
        window_seconds: Math.round(learnSecondsUsed),
        queued_at_start: queuedAtStart,
        queued_at_end: api.status()?.queued,
        lag_ms: lagOf(learnLag),
      },
      host: { node: process.versions.node, vscode: vscode.version },
    };
    fs.writeFileSync(
      path.join(path.dirname(cfg.resultsPath), 'bench-editor.json'),
      JSON.stringify(result, null, 2),
    );
    fs.rmSync(file, { force: true });
    console.log(`[bench] ${JSON.stringify(result)}`);
  });
});
