/**
 * Runs the embedded Chroma server where no other local process or user can reach it: in a private network
 * namespace of its own (`unshare --user --net`, unprivileged, Linux), listening on that namespace's
 * loopback, with a Unix socket in the 0700 `chroma/` folder as its only way in. Other users cannot
 * open the socket (folder permissions), and no TCP port of the host leads to Chroma. Mnemo processes
 * of the same user reach it through their authenticating front (`front.ts`).
 *
 * The host process is Node running {@link HOST_SCRIPT}: a worker thread forwards the socket to Chroma's
 * port inside the namespace, and the main thread runs the Chroma server from the `chromadb` bindings
 * in-process (it blocks that thread), so a kill of the host kills both. Its umask is 077, so the SQLite
 * files and the HNSW segments are created 0600.
 *
 * Where this is not possible (macOS, Windows, a kernel without unprivileged user namespaces, no `ip`),
 * the supervisor falls back to Chroma on 127.0.0.1 and says so in the log and `mnemo stats`.
 */
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { createRequire } from 'node:module';

/** Chroma's port inside its private namespace (no other process shares that namespace's loopback). */
const INNER_PORT = 8000;

/** Unix socket paths are limited to 108 bytes (104 on macOS); keep a margin. */
export const MAX_SOCKET_PATH = 100;

/**
 * argv: [bindingPath, socketPath, dbDir, port]. Plain JS (run with `node -e`), so it needs no bundle entry.
 */
const HOST_SCRIPT = `
const [bindingPath, sock, db, port] = process.argv.slice(1);
const { Worker } = require('node:worker_threads');
const fs = require('node:fs');
process.umask(0o077);
fs.rmSync(sock, { force: true });
const forwarder = new Worker(\`
  const net = require('node:net');
  const { workerData: { sock, port } } = require('node:worker_threads');
  net.createServer((c) => {
    const u = net.connect(Number(port), '127.0.0.1');
    c.pipe(u).pipe(c);
    u.on('error', () => c.destroy());
    c.on('error', () => u.destroy());
  }).listen(sock);
\`, { eval: true, workerData: { sock, port } });
forwarder.on('error', (e) => { console.error('Mnemo: the socket forwarder failed: ' + e.message); process.exit(1); });
forwarder.on('online', () => require(bindingPath).cli(['chroma', 'run', '--path', db, '--port', port, '--host', '127.0.0.1']));
`;

let probe: { ok: true } | { ok: false; reason: string } | undefined;

/** Whether Chroma can run in a private network namespace here (probed once per process). */
export function isolationAvailable(): { ok: true } | { ok: false; reason: string } {
  if (probe) return probe;
  if (process.platform !== 'linux')
    return (probe = { ok: false, reason: `network namespaces are Linux-only (this is ${process.platform})` });
  const r = spawnSync('unshare', ['--user', '--map-root-user', '--net', 'ip', 'link', 'set', 'lo', 'up'], {
    timeout: 5000,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.error)
    return (probe = {
      ok: false,
      reason: `unshare could not run (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})`,
    });
  if (r.status !== 0)
    return (probe = {
      ok: false,
      reason: `unprivileged network namespaces are unavailable (${r.stderr.toString().trim().split('\n')[0] || `exit ${r.status}`})`,
    });
  return (probe = { ok: true });
}

/** The native module that holds the Chroma server (the `chromadb` package's platform binding). */
function bindingPath(): string {
  const fromChroma = createRequire(require.resolve('chromadb'));
  return fromChroma.resolve(`chromadb-js-bindings-linux-${process.arch}-gnu`);
}

/** The command that starts Chroma for `dbDir` in a private network namespace, reachable at `socketPath`. */
export function isolatedCommand(socketPath: string, dbDir: string): { command: string; args: string[] } {
  return {
    command: 'unshare',
    args: [
      '--user',
      '--map-root-user',
      '--net',
      'sh',
      '-c',
      'ip link set lo up && exec "$0" -e "$1" "$2" "$3" "$4" "$5"',
      process.execPath,
      HOST_SCRIPT,
      bindingPath(),
      socketPath,
      dbDir,
      String(INNER_PORT),
    ],
  };
}

/** True when Chroma answers its heartbeat on the Unix socket. */
export function socketHeartbeat(socketPath: string, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      {
        socketPath,
        path: '/api/v2/heartbeat',
        method: 'GET',
        headers: { host: 'localhost' },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
