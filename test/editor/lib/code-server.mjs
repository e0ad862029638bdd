// Starts code-server (VS Code web + remote Node extension host; which build:
// lib/builds.mjs) on 127.0.0.1 with every folder it writes to (user data,
// extensions, config, HOME, XDG dirs) inside one state directory.
import fs from 'node:fs';
import path from 'node:path';
import { freePort, httpStatus, pollUntil, runToCompletion, spawnGroup, stopGroup } from './processes.mjs';

/** User settings that keep the workbench quiet and deterministic for tests. */
const SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'git.autoRepositoryDetection': false,
  'chat.commandCenter.enabled': false,
  'window.commandCenter': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'files.watcherExclude': { '**/node_modules/**': true },
};

/**
 * Creates a fresh state dir layout and returns the paths + env for code-server.
 * Keep `stateDir` short (it is under /tmp): VS Code and code-server create unix
 * sockets in it (user-data-dir/code-server-ipc.sock, XDG_RUNTIME_DIR/vscode-ipc-*.sock).
 */
export function prepareState(stateDir, extraEnv = {}, extraSettings = {}) {
  fs.rmSync(stateDir, { recursive: true, force: true });
  const dirs = {
    root: stateDir,
    home: path.join(stateDir, 'home'),
    userData: path.join(stateDir, 'user-data'),
    extensions: path.join(stateDir, 'extensions'),
    tmp: path.join(stateDir, 'tmp'),
    config: path.join(stateDir, 'config.yaml'),
    runtime: path.join(stateDir, 'run'),
  };
  for (const d of [dirs.home, dirs.userData, dirs.extensions, dirs.tmp, path.join(dirs.userData, 'User')]) {
    fs.mkdirSync(d, { recursive: true });
  }
  const settings = JSON.stringify({ ...SETTINGS, ...extraSettings }, null, 2);
  fs.writeFileSync(path.join(dirs.userData, 'User', 'settings.json'), settings);
  // The remote machine's settings: current VS Code applies machine-scoped settings (mnemo.embedding.*) in a
  // remote extension host only from here (1.99 also took them from the user settings).
  fs.mkdirSync(path.join(dirs.userData, 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(dirs.userData, 'Machine', 'settings.json'), settings);
  // Every key is also passed as a flag; the file only exists so code-server does not write one to ~/.config.
  fs.writeFileSync(dirs.config, 'auth: none\ncert: false\n');
  const env = {
    ...process.env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
    XDG_DATA_HOME: path.join(dirs.home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(dirs.home, '.cache'),
    XDG_STATE_HOME: path.join(dirs.home, '.local', 'state'),
    // VS Code puts its CLI IPC socket here; unix socket paths must stay under ~107 chars.
    XDG_RUNTIME_DIR: dirs.runtime,
    TMPDIR: dirs.tmp,
    // Any marketplace request goes to a closed loopback port instead of the internet.
    EXTENSIONS_GALLERY: JSON.stringify({
      serviceUrl: 'http://127.0.0.1:9/gallery',
      itemUrl: 'http://127.0.0.1:9/items',
      resourceUrlTemplate: 'http://127.0.0.1:9/resource/{publisher}/{name}/{version}/{path}',
    }),
    ...extraEnv,
  };
  fs.mkdirSync(dirs.runtime, { recursive: true, mode: 0o700 });
  // The harness's own variables must not leak into code-server/extension host unless asked for.
  // (e.g. when run from a VS Code terminal: VSCODE_IPC_HOOK_CLI would redirect the CLI to that window).
  for (const k of Object.keys(env)) {
    if (/^(VSCODE_|ELECTRON_RUN_AS_NODE$|NODE_OPTIONS$)/.test(k) && !(k in extraEnv)) delete env[k];
  }
  return { dirs, env };
}

function baseArgs(dirs) {
  return ['--config', dirs.config, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
}

export async function installVsix({ build, dirs, env, vsix, logFile, timeoutMs = 180_000 }) {
  const r = await runToCompletion(
    build.node,
    [build.entry, ...baseArgs(dirs), '--install-extension', vsix, '--force'],
    { env, cwd: dirs.root, timeoutMs, logFile },
  );
  if (r.code !== 0)
    throw new Error(
      `code-server --install-extension ${vsix} exited with ${r.code ?? r.signal} (see ${logFile})`,
    );
  const installed = fs
    .readdirSync(dirs.extensions, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dirs.extensions, d.name, 'package.json')));
  if (installed.length === 0)
    throw new Error(`no extension in ${dirs.extensions} after installing ${vsix} (see ${logFile})`);
  return installed.map((d) => path.join(dirs.extensions, d.name));
}

/**
 * Starts code-server and waits until /healthz answers. Returns
 * { url, port, stop(), proc }.
 */
export async function startCodeServer({
  build,
  dirs,
  env,
  logFile,
  extraArgs = [],
  startTimeoutMs = 90_000,
}) {
  let lastErr;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const args = [
      build.entry,
      ...baseArgs(dirs),
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--disable-proxy',
      '--ignore-last-opened',
      '--log',
      process.env.MNEMO_EDITOR_LOG_LEVEL || 'info',
      ...extraArgs,
    ];
    fs.appendFileSync(
      logFile,
      `\n=== ${new Date().toISOString()} code-server attempt ${attempt}: ${args.slice(1).join(' ')}\n`,
    );
    const proc = spawnGroup(build.node, args, { env, cwd: dirs.root, logFile });
    const url = `http://127.0.0.1:${port}`;
    try {
      await pollUntil(
        async () => {
          if (proc.exited)
            throw Object.assign(new Error('code-server exited during startup'), { fatal: true });
          return (await httpStatus(`${url}/healthz`)) === 200;
        },
        { timeoutMs: startTimeoutMs, intervalMs: 250, what: `code-server on ${url}/healthz` },
      );
      return { url, port, proc, stop: () => stopGroup(proc) };
    } catch (e) {
      lastErr = e;
      await stopGroup(proc, 2000);
      // A port taken between freePort() and bind is worth another try; anything else is not.
      const log = fs.readFileSync(logFile, 'utf8');
      if (!/EADDRINUSE/.test(log.slice(-4000))) break;
    }
  }
  throw new Error(`code-server did not start: ${lastErr?.message} (see ${logFile})`);
}
