#!/usr/bin/env node
// Editor test harness: runs Mnemo's tests inside a real VS Code (code-server)
// driven by headless Debian Chromium, on one of two builds (lib/builds.mjs):
// --vscode oldest (default; the oldest VS Code engines.vscode allows) or
// --vscode latest (the newest code-server on the registry, on Node 24).
//
//   bash test/editor/setup.sh                      # once; quick when already done
//   node test/editor/run.mjs [--vscode oldest|latest] [--ext-host] [--ui] [--vsix path/to/mnemo.vsix]
//
// Phases (both when neither flag is given):
//   --ext-host  bundles test/editor/suite (index.ts + *.test.ts) with esbuild to
//               <ext>/out/editor-suite/ and loads the workbench with the test
//               payload (extensionDevelopmentPath + extensionTestsPath); mocha
//               runs inside the remote Node extension host. Results come back as
//               a JSON file (+ the exit code through window.codeAutomationExit).
//   --ui        installs a VSIX into an isolated extensions dir, seeds the
//               extension's data folder with the memories the UI test modules
//               declare (`export const seed`, lib/seed.mjs), opens
//               test/fixtures/workspace and runs test/editor/ui/*.ui.mjs with
//               playwright, one screenshot per test.
// Output: one line per test, then exactly `N passed, N failed`; exit 1 on any
// failure. Artifacts (screenshots, logs, results, code-server state) go to
// test-artifacts/editor/<build>/.
//
// Other options: --ext-dev-path DIR (default: repo root), --expect-ext-id ID,
// --suite DIR (*.test.ts to run, default test/editor/suite), --ui-tests DIR,
// --workspace DIR, --artifacts DIR, --grep RE, --ext-host-timeout SEC (300),
// --ui-test-timeout SEC (90), --mocha-timeout SEC (per ext-host test, 30),
// --user-settings FILE (VS Code user settings for both phases, default
// test/editor/user-settings.json; "${repoRoot}" / "${workspace}" are
// substituted in string values), --ui-user-settings FILE (merged on top for the
// UI phase only, default test/editor/user-settings.ui.json: model path, bash
// with shell integration...), --grep RE (also filters UI tests by
// "<file> › <name>"), --keep-state (keep the /tmp/mnemo-editor-* dir
// holding code-server's user-data, extensions, HOME and XDG dirs; its logs are
// copied to the artifacts either way).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { launchBrowser } from './lib/browser.mjs';
import { buildNamed } from './lib/builds.mjs';
import { installVsix, prepareState, startCodeServer } from './lib/code-server.mjs';
import { killAllSync, withTimeout } from './lib/processes.mjs';
import { globalStorageDir, seedMemories } from './lib/seed.mjs';
import { bundleSuite } from './lib/suite.mjs';
import { Workbench } from './lib/workbench.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');

// ------------------------------------------------------------------ options --
const { values: opt } = parseArgs({
  options: {
    'ext-host': { type: 'boolean', default: false },
    ui: { type: 'boolean', default: false },
    vsix: { type: 'string' },
    vscode: { type: 'string', default: 'oldest' },
    'ext-dev-path': { type: 'string', default: REPO },
    'expect-ext-id': { type: 'string' },
    suite: { type: 'string', default: path.join(HERE, 'suite') },
    'ui-tests': { type: 'string', default: path.join(HERE, 'ui') },
    workspace: { type: 'string', default: path.join(REPO, 'test', 'fixtures', 'workspace') },
    artifacts: { type: 'string' },
    grep: { type: 'string' },
    'ext-host-timeout': { type: 'string', default: '300' },
    'ui-test-timeout': { type: 'string', default: '90' },
    'mocha-timeout': { type: 'string', default: '30' },
    'user-settings': { type: 'string', default: path.join(HERE, 'user-settings.json') },
    'ui-user-settings': { type: 'string', default: path.join(HERE, 'user-settings.ui.json') },
    'keep-state': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});
if (opt.help) {
  const src = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
  console.log(
    src
      .slice(
        1,
        src.findIndex((l) => l.startsWith('import')),
      )
      .map((l) => l.replace(/^\/\/ ?/, ''))
      .join('\n'),
  );
  process.exit(0);
}
const runExtHost = opt['ext-host'] || !opt.ui;
const runUi = opt.ui || !opt['ext-host'];
const extDevPath = path.resolve(opt['ext-dev-path']);
const workspace = path.resolve(opt.workspace);
const BUILD = buildNamed(opt.vscode);
const VSCODE = BUILD.vscodeVersion() ?? '?';
const ARTIFACTS = path.resolve(opt.artifacts ?? path.join(REPO, 'test-artifacts', 'editor', BUILD.name));
const extHostTimeoutMs = Number(opt['ext-host-timeout']) * 1000;
const uiTestTimeoutMs = Number(opt['ui-test-timeout']) * 1000;
// code-server state (user data, extensions, HOME, XDG dirs) lives in a short
// temp path: VS Code creates unix sockets there and their paths must stay < 108 chars.
const STATE_ROOT = fs.mkdtempSync(path.join(fs.existsSync('/tmp') ? '/tmp' : os.tmpdir(), 'mnemo-editor-'));

// ------------------------------------------------------------------ results --
/** @type {{phase: string, name: string, ok: boolean, skipped?: boolean, ms?: number, error?: string}[]} */
const results = [];
function record(r) {
  results.push(r);
  const ms = r.ms !== undefined ? ` (${Math.round(r.ms)} ms)` : '';
  const mark = r.skipped ? '-' : r.ok ? '✓' : '✗';
  console.log(`  ${mark} ${r.phase}@${VSCODE} › ${r.name}${ms}${r.skipped ? ' [skipped]' : ''}`);
  if (!r.ok && r.error) console.log(`      ${String(r.error).split('\n').slice(0, 12).join('\n      ')}`);
}
const errText = (e) => (e instanceof Error ? e.message : String(e));

// ------------------------------------------------------------------ cleanup --
const cleanups = [];
async function cleanupAll() {
  while (cleanups.length) {
    const fn = cleanups.pop();
    await Promise.resolve()
      .then(fn)
      .catch((e) => console.error(`[editor] cleanup: ${errText(e)}`));
  }
}
function removeState() {
  if (opt['keep-state']) return;
  try {
    fs.rmSync(STATE_ROOT, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch (e) {
    console.error(`[editor] could not remove ${STATE_ROOT}: ${errText(e)}`);
  }
}
process.on('exit', () => {
  killAllSync();
  removeState();
});
let aborting = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    if (aborting) return;
    aborting = true;
    console.error(`[editor] ${sig}: stopping code-server and chromium`);
    withTimeout(cleanupAll(), 20_000, 'cleanup')
      .catch(() => {})
      .finally(() => {
        killAllSync();
        removeState();
        process.exit(130);
      });
  });
}

/** Extra VS Code user settings (e.g. pointing network endpoints of the extension at loopback). */
function loadUserSettings(file = opt['user-settings']) {
  if (!file || !fs.existsSync(file)) return {};
  const subst = (v) =>
    typeof v === 'string' ? v.replaceAll('${repoRoot}', REPO).replaceAll('${workspace}', workspace) : v;
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  return Object.fromEntries(
    Object.entries(raw)
      .filter(([k]) => !k.startsWith('//'))
      .map(([k, v]) => [k, subst(v)]),
  );
}

function readManifest(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
}

/** An append-only line logger; lines arriving after cleanup closed it are dropped. */
function appendLine(file) {
  let fd = fs.openSync(file, 'a');
  cleanups.push(() => {
    const f = fd;
    fd = undefined;
    if (f !== undefined) fs.closeSync(f);
  });
  return (line) => {
    if (fd !== undefined) fs.writeSync(fd, `${line}\n`);
  };
}

async function safeScreenshot(page, file) {
  try {
    // Park the mouse so hover tooltips do not cover what the screenshot is about.
    await page.mouse.move(900, 700).catch(() => {});
    await page.screenshot({ path: file, timeout: 15_000 });
    return file;
  } catch (e) {
    console.log(`      (screenshot ${path.basename(file)} failed: ${errText(e)})`);
    return undefined;
  }
}

/**
 * Copies the server-side log folder (remote agent, extension host, extension
 * output channels) into the artifacts, and concatenates the extension host's
 * logs (its own log with uncaught errors + every extension's output channel)
 * into <phase>/extension-host.log.
 */
function collectServerLogs(dirs, dest) {
  const logs = path.join(dirs.userData, 'logs');
  if (fs.existsSync(logs)) fs.cpSync(logs, dest, { recursive: true });
  const coder = path.join(dirs.home, '.local', 'share', 'code-server', 'coder-logs');
  if (fs.existsSync(coder)) fs.cpSync(coder, path.join(dest, 'coder-logs'), { recursive: true });
  if (!fs.existsSync(dest)) return;
  const parts = [];
  for (const f of fs.readdirSync(dest, { recursive: true }).map(String).sort()) {
    if (!/(^|\/)exthost\d*\//.test(f) || !f.endsWith('.log')) continue;
    parts.push(`===== ${f} =====\n${fs.readFileSync(path.join(dest, f), 'utf8')}`);
  }
  if (parts.length)
    fs.writeFileSync(path.join(path.dirname(dest), 'extension-host.log'), `${parts.join('\n')}\n`);
}

// ------------------------------------------------------------ ext host phase --
function payloadUrl(baseUrl, folder, payload) {
  // The workbench reads ?folder= (a server path) and ?payload= (JSON array of
  // [key, value] pairs); values are parsed with URI.parse, so they are given
  // as vscode-remote URIs: a file: URI would make the workbench look for a
  // local (browser-side) extension host to run the tests, and there is none.
  return `${baseUrl}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

async function extHostPhase() {
  const phase = 'ext-host';
  const dir = path.join(ARTIFACTS, 'ext-host');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const manifestPath = path.join(extDevPath, 'package.json');
  if (!fs.existsSync(manifestPath)) throw new Error(`${manifestPath} not found`);
  const manifest = readManifest(extDevPath);
  const expectedId =
    opt['expect-ext-id'] ?? (extDevPath === REPO ? 'mnemo.mnemo' : `${manifest.publisher}.${manifest.name}`);
  const mainFile = manifest.main ? path.join(extDevPath, manifest.main) : undefined;
  if (mainFile && !fs.existsSync(mainFile)) {
    console.log(`  ! ${mainFile} is missing: the activation tests will fail (run npm run build first)`);
  } else if (mainFile) {
    // A bundle older than its manifest or sources tests yesterday's extension.
    const built = fs.statSync(mainFile).mtimeMs;
    const srcDir = path.join(extDevPath, 'src');
    const newer = [
      manifestPath,
      ...(fs.existsSync(srcDir)
        ? fs.readdirSync(srcDir, { recursive: true }).map((f) => path.join(srcDir, String(f)))
        : []),
    ].filter((f) => /\.(ts|js|json)$/.test(f) && fs.statSync(f).mtimeMs > built);
    if (newer.length) {
      console.log(
        `  ! ${path.relative(extDevPath, mainFile)} is older than ${newer
          .slice(0, 3)
          .map((f) => path.relative(extDevPath, f))
          .join(', ')}${newer.length > 3 ? ` (+${newer.length - 3})` : ''}: run npm run build`,
      );
    }
  }

  const outDir = path.join(extDevPath, 'out', 'editor-suite');
  const t0 = Date.now();
  const testFiles = await bundleSuite(path.resolve(opt.suite), outDir);
  const resultsPath = path.join(dir, 'results.json');
  const screenshotAckPath = path.join(dir, '.screenshot-taken');
  const runConfig = {
    screenshotAckPath,
    extensionDevelopmentPath: extDevPath,
    expectedExtensionId: expectedId,
    resultsPath,
    testFiles,
    mochaTimeoutMs: Number(opt['mocha-timeout']) * 1000,
    ...(opt.grep ? { grep: opt.grep } : {}),
  };
  const runConfigPath = path.join(outDir, 'run-config.json');
  fs.writeFileSync(runConfigPath, JSON.stringify(runConfig, null, 2));
  console.log(
    `[editor] ext-host: bundled ${testFiles.length} test file(s) in ${Date.now() - t0} ms → ${path.relative(REPO, outDir) || outDir}`,
  );

  const { dirs, env } = prepareState(
    path.join(STATE_ROOT, 'ext-host'),
    { MNEMO_EDITOR_RUN_CONFIG: runConfigPath },
    loadUserSettings(),
  );
  cleanups.push(() => collectServerLogs(dirs, path.join(dir, 'server-logs')));
  const server = await startCodeServer({
    build: BUILD,
    dirs,
    env,
    logFile: path.join(dir, 'code-server.log'),
    extraArgs: BUILD.testRunnerArgs,
  });
  cleanups.push(() => server.stop());
  console.log(`[editor] ext-host: code-server (VS Code ${VSCODE}) on ${server.url}`);

  let resolveExit;
  let rejectExit;
  const exited = new Promise((resolve, reject) => {
    resolveExit = resolve;
    rejectExit = reject;
  });
  const writeConsole = appendLine(path.join(dir, 'browser-console.log'));
  const consoleLog = (line) => {
    writeConsole(line);
    // The workbench only logs this and never reports an exit: fail fast instead of waiting for the timeout.
    if (line.includes('No extension host found that can launch the test runner')) {
      rejectExit(new Error(line.replace(/^\S+ \[console\.\w+\] /, '')));
    }
  };
  const browser = await launchBrowser({
    userDataDir: path.join(dirs.root, 'chromium'),
    onConsole: consoleLog,
  });
  cleanups.push(() => browser.close());
  const { page } = browser;
  await page.exposeFunction('codeAutomationExit', (code, logs) => {
    // logs: the workbench's own log files [{ relativePath, contents }] at exit.
    try {
      if (Array.isArray(logs)) {
        for (const l of logs) {
          if (!l || typeof l.relativePath !== 'string') continue;
          const target = path.join(dir, 'workbench-logs', l.relativePath.replace(/\.\.(\/|\\)/g, ''));
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(target, typeof l.contents === 'string' ? l.contents : JSON.stringify(l.contents));
        }
      }
    } catch (e) {
      consoleLog(`[harness] could not save workbench logs: ${errText(e)}`);
    }
    resolveExit(code);
  });

  const authority = new URL(server.url).host;
  const remote = (p) => `vscode-remote://${authority}${p}`;
  const url = payloadUrl(server.url, workspace, [
    ['extensionDevelopmentPath', remote(extDevPath)],
    ['extensionTestsPath', remote(path.join(outDir, 'index.js'))],
  ]);
  fs.writeFileSync(path.join(dir, 'url.txt'), `${url}\n`);
  // Fail fast instead of waiting for the timeout when code-server or the page dies.
  server.proc.exit.then(({ code, signal }) =>
    rejectExit(new Error(`code-server exited (${code ?? signal}) during the tests`)),
  );
  page.on('crash', () => rejectExit(new Error('the workbench page crashed')));
  const started = Date.now();
  await page.goto(url, { waitUntil: 'domcontentloaded' });

  // As soon as the runner has written its results (and waits for our ack), screenshot the
  // workbench while the extension host is still alive, then let the runner return.
  let stopWatching = false;
  const liveShot = (async () => {
    while (!stopWatching && !fs.existsSync(resultsPath)) await new Promise((r) => setTimeout(r, 200));
    if (stopWatching) return;
    await safeScreenshot(page, path.join(dir, 'tests-done.png'));
    fs.writeFileSync(screenshotAckPath, '');
  })();

  let exitCode;
  let timedOut = false;
  try {
    exitCode = await withTimeout(exited, extHostTimeoutMs, 'extension host tests');
  } catch (e) {
    timedOut = true;
    record({ phase, name: 'suite finished', ok: false, error: errText(e) });
    exitCode = undefined;
  }
  stopWatching = true;
  await liveShot;
  if (timedOut || exitCode !== 0) await safeScreenshot(page, path.join(dir, 'failure.png'));
  console.log(
    `[editor] ext-host: runner exit code ${exitCode ?? 'none'} after ${Math.round((Date.now() - started) / 1000)}s`,
  );

  let data;
  if (fs.existsSync(resultsPath)) {
    data = JSON.parse(fs.readFileSync(resultsPath, 'utf8'));
    for (const t of data.tests) {
      if (t.state === 'pending') record({ phase, name: t.fullTitle, ok: true, skipped: true });
      else record({ phase, name: t.fullTitle, ok: t.state === 'passed', ms: t.durationMs, error: t.error });
    }
    if (data.fatal) record({ phase, name: 'suite runner', ok: false, error: data.fatal });
    fs.writeFileSync(path.join(dir, 'extension-host-env.json'), JSON.stringify(data.host, null, 2));
  } else if (!timedOut) {
    record({
      phase,
      name: 'suite runner',
      ok: false,
      error: `no results file (${resultsPath}); exit code ${exitCode}. See ${path.join(dir, 'browser-console.log')}`,
    });
  }
  if (data && !timedOut && exitCode !== 0 && !data.tests.some((t) => t.state === 'failed') && !data.fatal) {
    record({
      phase,
      name: 'suite runner exit code',
      ok: false,
      error: `runner reported exit code ${exitCode}`,
    });
  }

  await browser.close();
  await server.stop();
}

// ------------------------------------------------------------------ UI phase --
function findVsix() {
  if (opt.vsix) return path.resolve(opt.vsix);
  if (process.env.MNEMO_VSIX) return path.resolve(process.env.MNEMO_VSIX);
  const candidates = fs
    .readdirSync(REPO)
    .filter((f) => f.endsWith('.vsix'))
    .map((f) => path.join(REPO, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return candidates[0];
}

async function loadUiTests() {
  const dir = path.resolve(opt['ui-tests']);
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.ui\.mjs$/.test(f))
    .sort();
  const tests = [];
  const seeds = [];
  const grep = opt.grep ? new RegExp(opt.grep) : undefined;
  for (const f of files) {
    const mod = await import(pathToFileURL(path.join(dir, f)).href);
    const list = mod.tests ?? mod.default;
    if (!Array.isArray(list)) throw new Error(`${f}: export \`tests\` (an array of { name, run(ctx) })`);
    const picked = list.filter((t) => !grep || grep.test(`${f.replace(/\.ui\.mjs$/, '')} › ${t.name}`));
    for (const t of picked) tests.push({ ...t, file: f });
    // Memories a module needs before the workbench starts (lib/seed.mjs); only for modules that run.
    if (picked.length && Array.isArray(mod.seed)) seeds.push(...mod.seed.map((s) => ({ ...s, from: f })));
  }
  return { tests, seeds };
}

const slug = (s) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);

async function uiPhase() {
  const phase = 'ui';
  const dir = path.join(ARTIFACTS, 'ui');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const vsix = findVsix();
  if (!vsix || !fs.existsSync(vsix)) {
    throw new Error(
      `no VSIX to install (${vsix ?? 'none found'}): pass --vsix path/to/file.vsix (build one with npm run package)`,
    );
  }
  const { tests, seeds } = await loadUiTests();
  if (tests.length === 0)
    throw new Error(`no *.ui.mjs tests in ${opt['ui-tests']}${opt.grep ? ` matching ${opt.grep}` : ''}`);

  const settings = { ...loadUserSettings(), ...loadUserSettings(opt['ui-user-settings']) };
  const { dirs, env } = prepareState(path.join(STATE_ROOT, 'ui'), {}, settings);
  cleanups.push(() => collectServerLogs(dirs, path.join(dir, 'server-logs')));
  const t0 = Date.now();
  const installed = await installVsix({
    build: BUILD,
    dirs,
    env,
    vsix,
    logFile: path.join(dir, 'install-extension.log'),
  });
  const extensionPath = installed[0];
  const manifest = readManifest(extensionPath);
  const extensionId = `${manifest.publisher}.${manifest.name}`;
  console.log(
    `[editor] ui: installed ${extensionId}@${manifest.version} from ${path.basename(vsix)} in ${Date.now() - t0} ms`,
  );

  // Seed the extension's data folder with the memories the tests declare, with the installed
  // extension's own CLI and the same embedding settings the sidecar will use.
  let seed = { workspaceProject: undefined, memories: [] };
  if (seeds.length) {
    const t1 = Date.now();
    seed = await seedMemories({
      cli: path.join(extensionPath, 'dist', 'cli.js'),
      dataDir: globalStorageDir(dirs.userData, extensionId),
      env,
      workspace,
      model: settings['mnemo.embedding.model'],
      modelPath: settings['mnemo.embedding.modelPath'],
      seeds,
      workDir: path.join(dir, 'seed'),
      logFile: path.join(dir, 'seed.log'),
    });
    fs.writeFileSync(path.join(dir, 'seed', 'seeded.json'), JSON.stringify(seed, null, 2));
    console.log(
      `[editor] ui: seeded ${seed.memories.length} memories (${seeds.length} seed entries) in ${Date.now() - t1} ms`,
    );
  }

  const server = await startCodeServer({
    build: BUILD,
    dirs,
    env,
    logFile: path.join(dir, 'code-server.log'),
  });
  cleanups.push(() => server.stop());
  console.log(`[editor] ui: code-server (VS Code ${VSCODE}) on ${server.url}`);
  const consoleLog = appendLine(path.join(dir, 'browser-console.log'));
  const browser = await launchBrowser({
    userDataDir: path.join(dirs.root, 'chromium'),
    onConsole: consoleLog,
  });
  cleanups.push(() => browser.close());
  const { page } = browser;
  const wb = new Workbench(page, { log: consoleLog });

  await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`, {
    waitUntil: 'domcontentloaded',
  });
  try {
    await wb.waitReady();
    await wb.installTrace();
  } catch (e) {
    await safeScreenshot(page, path.join(dir, 'workbench-not-ready.png'));
    throw e;
  }

  for (const t of tests) {
    const name = `${t.file.replace(/\.ui\.mjs$/, '')} › ${t.name}`;
    const shot = path.join(dir, `${slug(t.file.replace(/\.ui\.mjs$/, ''))}--${slug(t.name)}.png`);
    const ctx = {
      page,
      wb,
      manifest,
      extensionId,
      extensionPath,
      vscodeVersion: VSCODE,
      workspace,
      // code-server's HOME (where agents keep their transcripts) and its user settings file.
      home: dirs.home,
      userSettingsFile: path.join(dirs.userData, 'User', 'settings.json'),
      seed,
      settings,
      artifactsDir: dir,
      log: (m) => consoleLog(`${new Date().toISOString()} [ui:${t.name}] ${m}`),
      screenshot: (label) => safeScreenshot(page, shot.replace(/\.png$/, `--${slug(label)}.png`)),
    };
    const started = Date.now();
    let error;
    try {
      await withTimeout(
        Promise.resolve().then(() => t.run(ctx)),
        t.timeoutMs ?? uiTestTimeoutMs,
        name,
      );
    } catch (e) {
      error = e instanceof Error ? e.stack || e.message : String(e);
    }
    const ms = Date.now() - started;
    await safeScreenshot(page, shot);
    record({ phase, name, ok: !error, ms, error });
    await wb.dismiss().catch(() => {});
  }

  await browser.close();
  await server.stop();
}

// --------------------------------------------------------------------- main --
async function main() {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const t0 = Date.now();
  const phases = [];
  if (runExtHost) phases.push(['ext-host', extHostPhase]);
  if (runUi) phases.push(['ui', uiPhase]);
  for (const [name, fn] of phases) {
    console.log(`[editor] ${name} phase`);
    const before = results.length;
    try {
      await fn();
    } catch (e) {
      record({
        phase: name,
        name: 'harness',
        ok: false,
        error: e instanceof Error ? e.stack || e.message : String(e),
      });
    } finally {
      await cleanupAll();
    }
    if (results.length === before) record({ phase: name, name: 'ran no tests', ok: false });
  }
  if (opt['keep-state']) console.log(`[editor] code-server state kept in ${STATE_ROOT}`);
  const passed = results.filter((r) => r.ok && !r.skipped).length;
  const failed = results.filter((r) => !r.ok).length;
  const skipped = results.filter((r) => r.skipped).length;
  fs.writeFileSync(
    path.join(ARTIFACTS, 'summary.json'),
    JSON.stringify({ build: BUILD.name, vscode: VSCODE, passed, failed, skipped, results }, null, 2),
  );
  console.log(
    `[editor] artifacts: ${path.relative(process.cwd(), ARTIFACTS) || ARTIFACTS} (${Math.round((Date.now() - t0) / 1000)}s)`,
  );
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

const code = await main().catch(async (e) => {
  console.error(e);
  await cleanupAll();
  return 1;
});
process.exit(code);
