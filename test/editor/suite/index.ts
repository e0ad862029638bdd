/**
 * Mocha runner for the editor suite. VS Code's extension host loads the bundle
 * of this file (out/editor-suite/index.js) as `extensionTestsPath` and calls
 * `run()`; resolving makes the workbench report exit code 0, rejecting 1 (seen
 * by run.mjs through `window.codeAutomationExit`).
 *
 * Results go back to run.mjs as a JSON file (RunConfig.resultsPath) and as one
 * console line `MNEMO_EDITOR_RESULT {...}`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import { loadRunConfig } from './harness';

interface TestRecord {
  title: string;
  fullTitle: string;
  file?: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number;
  error?: string;
}

const ENV_KEYS =
  /^(HOME|PATH|PWD|USER|SHELL|LANG|TMPDIR|NODE_OPTIONS|ELECTRON_RUN_AS_NODE|XDG_.*|VSCODE_.*|MNEMO_.*|CODE_SERVER_.*)$/;

function hostInfo(): Record<string, unknown> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (ENV_KEYS.test(k) && v !== undefined) env[k] = v;
  }
  return {
    vscodeVersion: vscode.version,
    appName: vscode.env.appName,
    appHost: vscode.env.appHost,
    remoteName: vscode.env.remoteName ?? null,
    uiKind: vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop',
    node: process.versions.node,
    execPath: process.execPath,
    cwd: process.cwd(),
    pid: process.pid,
    platform: `${process.platform}-${process.arch}`,
    env,
  };
}

function writeResults(file: string, data: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(data, null, 2));
  fs.renameSync(tmp, file);
}

async function waitForFile(file: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function run(): Promise<void> {
  const cfg = loadRunConfig();
  const startedAt = new Date().toISOString();
  const tests: TestRecord[] = [];
  const mocha = new Mocha({ ui: 'bdd', color: false, reporter: 'spec', timeout: cfg.mochaTimeoutMs });
  if (cfg.grep) mocha.grep(cfg.grep);
  for (const f of cfg.testFiles) mocha.addFile(f);

  let failures: number;
  let fatal: string | undefined;
  try {
    failures = await new Promise<number>((resolve, reject) => {
      try {
        const runner = mocha.run((n) => resolve(n));
        runner.on('pass', (t) =>
          tests.push({
            title: t.title,
            fullTitle: t.fullTitle(),
            file: t.file,
            state: 'passed',
            durationMs: t.duration,
          }),
        );
        runner.on('fail', (t, err: Error) =>
          tests.push({
            title: t.title,
            fullTitle: t.fullTitle(),
            file: t.file,
            state: 'failed',
            durationMs: t.duration,
            error: (err && (err.stack || err.message)) || String(err),
          }),
        );
        runner.on('pending', (t) =>
          tests.push({ title: t.title, fullTitle: t.fullTitle(), file: t.file, state: 'pending' }),
        );
      } catch (e) {
        reject(e);
      }
    });
  } catch (e) {
    fatal = e instanceof Error ? e.stack || e.message : String(e);
    failures = 1;
  }

  const passed = tests.filter((t) => t.state === 'passed').length;
  const failed = tests.filter((t) => t.state === 'failed').length + (fatal ? 1 : 0);
  const pending = tests.filter((t) => t.state === 'pending').length;
  const summary = { passed, failed, pending };
  writeResults(cfg.resultsPath, {
    summary,
    fatal: fatal ?? null,
    tests,
    startedAt,
    finishedAt: new Date().toISOString(),
    host: hostInfo(),
  });
  console.log(`MNEMO_EDITOR_RESULT ${JSON.stringify(summary)}`);
  if (cfg.screenshotAckPath) await waitForFile(cfg.screenshotAckPath, 15_000);

  if (fatal) throw new Error(`editor suite crashed: ${fatal}`);
  if (passed + failed === 0) throw new Error('editor suite ran no tests');
  if (failures > 0 || failed > 0) throw new Error(`${Math.max(failures, failed)} editor test(s) failed`);
}
