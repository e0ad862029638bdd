#!/usr/bin/env node
// `npm run test:desktop`: the same extension-host suite as run.mjs (test/editor/suite), in desktop
// VS Code through @vscode/test-electron, the conventional runner for VS Code extensions.
//
// It needs what @vscode/test-electron needs: a download of VS Code (cached in .vscode-test/) and, on
// Linux, a display (run it under `xvfb-run -a` on a headless machine). Where VS Code cannot be
// downloaded it says so in one sentence and exits 1 within the download timeout, instead of hanging.
// CI (npm test) uses the code-server runner, run.mjs, which needs no download.
//
// Options: --version stable|insiders|X.Y.Z (default stable), --download-timeout SEC (idle, 30),
// --grep RE, --mocha-timeout SEC (30), --artifacts DIR (default test-artifacts/desktop).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleSuite } from './lib/suite.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const { values: opt } = parseArgs({
  options: {
    version: { type: 'string', default: 'stable' },
    'download-timeout': { type: 'string', default: '30' },
    grep: { type: 'string' },
    'mocha-timeout': { type: 'string', default: '30' },
    artifacts: { type: 'string', default: path.join(REPO, 'test-artifacts', 'desktop') },
  },
  strict: true,
});

const fail = (sentence) => {
  console.error(`test:desktop: ${sentence}`);
  process.exit(1);
};
const errText = (e) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

const { downloadAndUnzipVSCode, runTests } = await import('@vscode/test-electron');

// 1. Desktop VS Code (the step that cannot work on a machine without access to its download site).
let vscodeExecutablePath;
const timeoutMs = Number(opt['download-timeout']) * 1000;
try {
  const download = downloadAndUnzipVSCode({
    version: opt.version,
    timeout: timeoutMs,
    cachePath: path.join(REPO, '.vscode-test'),
  });
  // The idle timeout covers a stalled transfer; this bounds a connection that never answers at all.
  let timer;
  const overall = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${(2 * timeoutMs) / 1000} s`)), 2 * timeoutMs);
  });
  vscodeExecutablePath = await Promise.race([download, overall]).finally(() => clearTimeout(timer));
} catch (e) {
  fail(
    `desktop VS Code (${opt.version}) could not be downloaded here (${errText(e)}); run it where update.code.visualstudio.com is reachable, or use npm test, whose code-server runner needs no download.`,
  );
}
if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  fail(
    'desktop VS Code needs a display: run it as `xvfb-run -a npm run test:desktop` (Debian package xvfb).',
  );
}

// 2. The suite, bundled exactly as the code-server runner bundles it.
if (!fs.existsSync(path.join(HERE, 'node_modules', 'mocha')))
  fail('the editor test harness is not installed: run npm run setup first.');
if (!fs.existsSync(path.join(REPO, 'dist', 'extension.js')))
  fail('dist/extension.js is missing: run npm run build first.');
const artifacts = path.resolve(opt.artifacts);
fs.rmSync(artifacts, { recursive: true, force: true });
fs.mkdirSync(artifacts, { recursive: true });
const outDir = path.join(REPO, 'out', 'editor-suite-desktop');
const testFiles = await bundleSuite(path.join(HERE, 'suite'), outDir);
const resultsPath = path.join(artifacts, 'results.json');
const runConfigPath = path.join(outDir, 'run-config.json');
fs.writeFileSync(
  runConfigPath,
  JSON.stringify(
    {
      extensionDevelopmentPath: REPO,
      expectedExtensionId: 'mnemo.mnemo',
      resultsPath,
      testFiles,
      mochaTimeoutMs: Number(opt['mocha-timeout']) * 1000,
      ...(opt.grep ? { grep: opt.grep } : {}),
    },
    null,
    2,
  ),
);

// 3. A throwaway profile with the same user settings as the code-server runner.
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-desktop-'));
const userDir = path.join(state, 'user-data', 'User');
fs.mkdirSync(userDir, { recursive: true });
const raw = JSON.parse(fs.readFileSync(path.join(HERE, 'user-settings.json'), 'utf8'));
const workspace = path.join(REPO, 'test', 'fixtures', 'workspace');
const settings = Object.fromEntries(
  Object.entries(raw)
    .filter(([k]) => !k.startsWith('//'))
    .map(([k, v]) => [
      k,
      typeof v === 'string' ? v.replaceAll('${repoRoot}', REPO).replaceAll('${workspace}', workspace) : v,
    ]),
);
fs.writeFileSync(path.join(userDir, 'settings.json'), JSON.stringify(settings, null, 2));

let exitCode = 1;
try {
  exitCode = await runTests({
    vscodeExecutablePath,
    extensionDevelopmentPath: REPO,
    extensionTestsPath: path.join(outDir, 'index.js'),
    extensionTestsEnv: { MNEMO_EDITOR_RUN_CONFIG: runConfigPath },
    launchArgs: [
      workspace,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--user-data-dir',
      path.join(state, 'user-data'),
      '--extensions-dir',
      path.join(state, 'extensions'),
    ],
  });
} catch (e) {
  console.error(`test:desktop: the extension host run failed: ${errText(e)}`);
} finally {
  fs.rmSync(state, { recursive: true, force: true });
}

// 4. The same closing line as every other runner.
let passed = 0;
let failed = exitCode === 0 ? 0 : 1;
if (fs.existsSync(resultsPath)) {
  const data = JSON.parse(fs.readFileSync(resultsPath, 'utf8'));
  for (const t of data.tests)
    console.log(
      `${t.state === 'passed' ? '  ✓' : t.state === 'failed' ? '  ✗' : '  -'} ${t.fullTitle}${t.error ? `\n      ${t.error.split('\n')[0]}` : ''}`,
    );
  passed = data.tests.filter((t) => t.state === 'passed').length;
  failed = data.tests.filter((t) => t.state === 'failed').length + (data.fatal ? 1 : 0);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && exitCode === 0 ? 0 : 1);
