/**
 * Runs the embedded Chroma server where no other local process or user can reach it: in a private network
 * namespace of its own (`unshare --user --net`, unprivileged, Linux), listening on that namespace's
 * loopback, with a Unix socket in the 0700 `chroma/` folder as its only way in. Other users cannot
 * open the socket (folder permissions), and no TCP port of the host leads to Chroma. Mnemo processes
 * of the same user send their requests to the socket (`socketFetch.ts`).
 *
 * The host process is Node running {@link HOST_SCRIPT}: a worker thread forwards the socket to Chroma's
 * port inside the namespace, and the main thread runs the Chroma server from the `chromadb` bindings
 * in-process (it blocks that thread), so a kill of the host kills both. Its umask is 077, so the SQLite
 * files and the HNSW segments are created 0600.
 *
 * A data folder whose socket path would be too long for a Unix socket gets its socket in a short private
 * folder of this user's instead ({@link socketPathFor}): the store is isolated all the same.
 *
 * Where a namespace is not possible (macOS, Windows, a kernel without unprivileged user namespaces, no
 * `ip`), Chroma could only listen on 127.0.0.1, where Chroma 1.0.5 checks neither a token nor the Host
 * header: the supervisor refuses to start it there unless the person allowed it
 * (`mnemo.chroma.allowUnisolated`), and then says "not isolated" in the status and `mnemo stats`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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

/**
 * The Unix socket of the isolated Chroma for `dbDir`: `<dbDir>/mnemo-chroma.sock` (in the 0700 `chroma/`
 * folder), or when that path is longer than {@link MAX_SOCKET_PATH} bytes (the extension's own storage
 * under a VS Code Insiders profile of a `firstname.lastname` user is 104), `<folder>/<hash of dbDir>.sock`
 * in the first private folder of this user's that is short enough: `$XDG_RUNTIME_DIR/mnemo`, then
 * `<tmpdir>/mnemo-<uid>`, then `/tmp/mnemo-<uid>`. Every process of the data folder computes the same path.
 * Undefined (with why) when none is short enough or private.
 */
export function socketPathFor(
  dbDir: string,
  env: NodeJS.ProcessEnv = process.env,
): { path: string } | { refused: string } {
  const own = join(dbDir, 'mnemo-chroma.sock');
  if (Buffer.byteLength(own) <= MAX_SOCKET_PATH) return { path: own };
  const name = `${createHash('sha256').update(resolve(dbDir)).digest('hex').slice(0, 16)}.sock`;
  const uid = process.getuid?.() ?? 0;
  const folders = [
    ...(env.XDG_RUNTIME_DIR ? [join(env.XDG_RUNTIME_DIR, 'mnemo')] : []),
    join(tmpdir(), `mnemo-${uid}`),
    `/tmp/mnemo-${uid}`,
  ];
  const why: string[] = [];
  for (const folder of [...new Set(folders)]) {
    const path = join(folder, name);
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
      why.push(`${folder} is too long`);
      continue;
    }
    const problem = privateFolder(folder);
    if (!problem) return { path };
    why.push(problem);
  }
  return {
    refused: `the data folder path is too long for a Unix socket (${own}) and no short private folder is at hand (${why.join('; ')})`,
  };
}

/**
 * Creates `folder` 0700 if needed and checks that it is this user's alone: a real folder (not a link),
 * owned by this user, with no access for anyone else (in a shared /tmp another user may have made it
 * first). Returns why not, or undefined when it is private.
 */
function privateFolder(folder: string): string | undefined {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const st = lstatSync(folder);
    if (!st.isDirectory()) return `${folder} is not a folder`;
    if (process.getuid && st.uid !== process.getuid()) return `${folder} belongs to another user`;
    if ((st.mode & 0o077) !== 0) return `${folder} is open to other users`;
    return undefined;
  } catch (e) {
    return `${folder} cannot be made (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
  }
}

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
