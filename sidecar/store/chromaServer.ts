/**
 * Supervises the embedded Chroma server (npm `chromadb`, `chroma run`) for one data folder: starts it,
 * waits for the heartbeat, restarts it if it dies (bounded), stops it on shutdown. A second sidecar on
 * the same data folder finds `mnemo-server.json` and uses the running server instead of starting a
 * competing one.
 *
 * Chroma 1.0.5 enforces no authentication, so where the platform allows it Chroma runs in a private
 * network namespace reachable only through a Unix socket in a 0700 folder (`isolation.ts`), and this
 * process sends its requests to that socket (`socketFetch.ts`): no Mnemo process listens on a TCP port for
 * it. Elsewhere it is not started, unless the person allowed it to bind 127.0.0.1 (`allowUnisolated`); then
 * it runs there with owner-only files, and the endpoint says "not isolated" (status bar, `mnemo stats`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  type WriteStream,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { StoreUnavailableError } from '../shared/errors';
import { writeFailure } from '../util/append';
import { replaceFile } from '../shared/atomicFile';
import { failpoint } from '../util/failpoint';
import { createLock, lockIsStale } from '../util/fileLock';
import { pidAlive } from '../util/process';
import { balanceReserve, RESERVE_BYTES, reserveFile } from './diskReserve';
import { purgePending, readPending, type PurgeResult } from './erasure';
import { isolatedCommand, isolationAvailable, socketHeartbeat, socketPathFor } from './isolation';
import { defaultArenasEnv } from '../shared/processEnv';

export interface ChromaEndpoint {
  host: string;
  port: number;
  ssl: boolean;
  headers?: Record<string, string>;
  /**
   * The Unix socket of a server in a private network namespace: requests go there (socketFetch.ts), and
   * host and port only name it.
   */
  socketPath?: string;
  /** Human description for status and `mnemo stats`. */
  describe: string;
  /** Set for an embedded server on 127.0.0.1 that other local users can reach: why it is not isolated. */
  notIsolated?: string;
}

interface ServerFile {
  pid: number;
  /** The TCP port on 127.0.0.1 (a server started without isolation). */
  port?: number;
  /** The Unix socket of a server in a private network namespace. */
  socket?: string;
  started_at: string;
  owner_pid: number;
}

export async function heartbeat(
  host: string,
  port: number,
  ssl = false,
  headers?: Record<string, string>,
  timeoutMs = 1500,
): Promise<boolean> {
  try {
    const res = await fetch(`${ssl ? 'https' : 'http'}://${host}:${port}/api/v2/heartbeat`, {
      signal: AbortSignal.timeout(timeoutMs),
      headers,
    });
    return res.ok;
  } catch {
    return false;
  }
}

async function freePort(preferred?: number): Promise<number> {
  const tryPort = (p: number) =>
    new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.unref();
      srv.once('error', reject);
      srv.listen(p, '127.0.0.1', () => {
        const addr = srv.address();
        const port = typeof addr === 'object' && addr ? addr.port : p;
        srv.close(() => resolve(port));
      });
    });
  if (preferred) {
    try {
      return await tryPort(preferred);
    } catch {
      // taken: fall through to any free port
    }
  }
  return tryPort(0);
}

/** Resolves the chroma CLI shipped in the `chromadb` npm package. */
export function chromaCliPath(): string {
  // The package's "exports" hide package.json, so walk up from its entry point.
  let dir = dirname(require.resolve('chromadb'));
  for (let i = 0; i < 5 && !existsSync(join(dir, 'package.json')); i++) dir = dirname(dir);
  return join(dir, 'dist', 'cli.mjs');
}

export interface ChromaSupervisorOptions {
  /** The data folder; the database lives in `<dataDir>/chroma`. */
  dataDir: string;
  /** Remote/team server URL; when set nothing is started locally. */
  url?: string;
  token?: string;
  log?: (line: string) => void;
  /** Called when the server died or came back, with one sentence. */
  onHealth?: (ok: boolean, message: string) => void;
  /** Max automatic restarts within {@link restartWindowMs} (default 5 in 5 minutes). */
  maxRestarts?: number;
  restartWindowMs?: number;
  startTimeoutMs?: number;
  /** Run Chroma in a private network namespace, reachable only through its socket, where possible (default true). */
  isolate?: boolean;
  /**
   * Where it cannot be isolated, run it on 127.0.0.1 anyway, reachable by every local user and process
   * (default false: refuse, with one sentence saying why and what to do). `mnemo.chroma.allowUnisolated`.
   */
  allowUnisolated?: boolean;
}

export class ChromaSupervisor {
  private child: ChildProcess | undefined;
  private endpoint: ChromaEndpoint | undefined;
  private starting: Promise<ChromaEndpoint> | undefined;
  /** Set by {@link stop}: a stopped supervisor never starts or adopts a server again. */
  private stopping = false;
  /** Set while the last health report was bad: the next successful start reports it good again. */
  private unhealthy = false;
  private restarts: number[] = [];
  private logStream: WriteStream | undefined;
  private readonly dbDir: string;
  private readonly serverFile: string;
  private readonly lockFile: string;
  private socketPlace: ReturnType<typeof socketPathFor> | undefined;

  constructor(private readonly opts: ChromaSupervisorOptions) {
    this.dbDir = join(opts.dataDir, 'chroma');
    this.serverFile = join(this.dbDir, 'mnemo-server.json');
    this.lockFile = join(this.dbDir, 'mnemo-start.lock');
  }

  /** Where the isolated server's socket is (isolation.ts `socketPathFor`; found once). */
  private get socketPath(): string {
    this.socketPlace ??= socketPathFor(this.dbDir);
    return 'path' in this.socketPlace ? this.socketPlace.path : '';
  }

  /** Why Chroma is not isolated here, or undefined when it can be. */
  private isolationRefused(): string | undefined {
    if (this.opts.isolate === false) return 'isolation is turned off';
    this.socketPlace ??= socketPathFor(this.dbDir);
    if ('refused' in this.socketPlace) return this.socketPlace.refused;
    const probe = isolationAvailable();
    return probe.ok ? undefined : probe.reason;
  }

  /** How Chroma runs, for `mnemo stats`: the endpoint's description once connected. */
  describe(): string {
    if (this.opts.url) return `remote ${this.opts.url}`;
    return this.endpoint?.describe ?? 'embedded Chroma (not started yet)';
  }

  /** Why the embedded server this process uses is not isolated from other local users, when it is not. */
  get notIsolated(): string | undefined {
    return this.endpoint?.notIsolated;
  }

  /** The endpoint for a server behind a Unix socket: the socket itself (socketFetch.ts). */
  private socketEndpoint(pid: number, shared: boolean): ChromaEndpoint {
    return {
      host: 'localhost',
      port: 80,
      ssl: false,
      socketPath: this.socketPath,
      describe: `embedded Chroma (${shared ? 'shared, ' : ''}pid ${pid}, private network namespace) through its socket ${this.socketPath}`,
    };
  }

  get isRemote(): boolean {
    return !!this.opts.url;
  }

  /** The pid of the Chroma process this sidecar started, if any. */
  get childPid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Returns a live endpoint, starting or adopting a server as needed. After {@link stop} it refuses: a
   * late caller (a model load finishing after dispose) must not start a second server that keeps the
   * process alive and outlives it.
   */
  async ensure(): Promise<ChromaEndpoint> {
    if (this.opts.url) return this.remoteEndpoint();
    if (this.stopping)
      throw new StoreUnavailableError('Mnemo is shutting down, so the memory store is closed.');
    if (
      this.endpoint &&
      (this.endpoint.socketPath
        ? await socketHeartbeat(this.endpoint.socketPath)
        : await heartbeat(this.endpoint.host, this.endpoint.port, false, this.endpoint.headers))
    )
      return this.endpoint;
    this.starting ??= this.startOrAdopt()
      .then((ep) => {
        // "Crashed too often" must not stay up once a later request brought the store back.
        if (this.unhealthy) this.health(true, 'The embedded Chroma server is running again.');
        return ep;
      })
      .finally(() => {
        this.starting = undefined;
      });
    return this.starting;
  }

  private remoteEndpoint(): ChromaEndpoint {
    const u = new URL(this.opts.url!);
    const ssl = u.protocol === 'https:';
    const headers = this.opts.token
      ? { 'x-chroma-token': this.opts.token, Authorization: `Bearer ${this.opts.token}` }
      : undefined;
    return {
      host: u.hostname,
      port: u.port ? Number(u.port) : ssl ? 443 : 80,
      ssl,
      headers,
      describe: `remote Chroma at ${u.origin}`,
    };
  }

  private readServerFile(): ServerFile | undefined {
    try {
      return JSON.parse(readFileSync(this.serverFile, 'utf8')) as ServerFile;
    } catch {
      return undefined;
    }
  }

  /**
   * Uses the server another live Mnemo process started on this data folder. A server whose owner is gone
   * (killed while its server kept running) is stopped instead, so orphaned servers never pile up and a
   * server wedged by its owner's crash is never reused.
   */
  private async adopt(): Promise<ChromaEndpoint | undefined> {
    const info = this.readServerFile();
    if (!info || !pidAlive(info.pid)) return undefined;
    const alive = info.socket
      ? info.socket === this.socketPath && (await socketHeartbeat(info.socket))
      : !!info.port && (await heartbeat('127.0.0.1', info.port));
    if (!alive) return undefined;
    if (info.owner_pid !== process.pid && !pidAlive(info.owner_pid)) {
      // Its owner died (kill -9, a crash, a full disk): its state is unknown (after ENOSPC its requests
      // can hang) and nobody would stop it. Stop it; the caller starts a fresh server under the lock.
      this.opts.log?.(
        `Stopping the Chroma server (pid ${info.pid}) left by a process that exited; starting a fresh one`,
      );
      rmSync(this.serverFile, { force: true });
      await stopPid(info.pid);
      return undefined;
    }
    this.endpoint = info.socket
      ? this.socketEndpoint(info.pid, true)
      : tcpEndpoint(info.pid, info.port!, 'another Mnemo process started it on 127.0.0.1', true);
    return this.endpoint;
  }

  /**
   * Exclusive start lock across processes (util/fileLock.ts: a link to our pid). It is stale, and broken,
   * when its holder is dead (or its pid was reused by a process started after the lock was taken), when it
   * is this process's own, or when it holds no valid pid (a plain lock file an older version left empty
   * after a full disk) and is older than two seconds.
   */
  private async withStartLock<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 60_000;
    while (!this.tryStartLock()) {
      if (Date.now() > deadline)
        throw new StoreUnavailableError(
          'Another Mnemo process is starting Chroma and did not finish within a minute.',
        );
      await new Promise((r) => setTimeout(r, 200));
    }
    try {
      return await fn();
    } finally {
      rmSync(this.lockFile, { force: true });
    }
  }

  /**
   * One attempt at the start lock (a stale one is broken first): true when this process now holds it. The
   * lock is a link to our pid (util/fileLock.ts): taking it needs no free data block, so a full disk does
   * not keep Chroma, and every read, from starting.
   */
  private tryStartLock(): boolean {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if (createLock(this.lockFile)) return true;
      } catch (e) {
        throw writeFailure("Chroma's start lock", e);
      }
      if (!lockIsStale(this.lockFile, 'stale')) return false;
      rmSync(this.lockFile, { force: true });
    }
    return false;
  }

  /**
   * Chroma's output log. Logging is best effort: a write that fails (a full disk) drops the log, never the
   * server — its output is still read, so Chroma never blocks on a full pipe; the next start opens it again.
   */
  private openLog(): WriteStream {
    const stream = createWriteStream(join(this.opts.dataDir, 'logs', 'chroma.log'), {
      flags: 'a',
      mode: 0o600,
    });
    stream.on('error', () => {
      if (this.logStream === stream) this.logStream = undefined;
      // the pipes let go of a failed stream; keep reading what Chroma writes
      setImmediate(() => {
        this.child?.stdout?.resume();
        this.child?.stderr?.resume();
      });
    });
    return stream;
  }

  private async startOrAdopt(): Promise<ChromaEndpoint> {
    mkdirSync(this.dbDir, { recursive: true, mode: 0o700 });
    // The data folder and the database are this user's only: 0700 folders, 0600 files (new ones are
    // created so; files an earlier version or another umask left readable are closed here).
    for (const dir of [this.opts.dataDir, this.dbDir]) {
      try {
        chmodSync(dir, 0o700);
      } catch {
        // not ours to change (a shared folder set up by an administrator)
      }
    }
    ownerOnly(this.dbDir);
    const adopted = await this.adopt();
    if (adopted) return adopted;
    return this.withStartLock(async () => {
      const again = await this.adopt();
      if (again) return again;
      await this.stopStrays();
      return this.spawnServer();
    });
  }

  /**
   * Stops Chroma servers on this data folder that no server file names: a process killed after it
   * spawned its server and before the server answered (and the file was written) leaves one that nobody
   * would ever adopt or stop. Called under the start lock, after adoption failed, so any server still
   * running on this folder is such a stray; the one a live process's server file names is left alone.
   * Linux only (/proc); elsewhere the server file is all there is.
   */
  private async stopStrays(): Promise<void> {
    const named = this.readServerFile();
    const keep = named && pidAlive(named.owner_pid) ? named.pid : undefined;
    for (const pid of chromaProcesses(this.dbDir, [chromaCliPath(), this.socketPath].filter(Boolean))) {
      if (pid === keep || pid === process.pid) continue;
      this.opts.log?.(`Stopping a Chroma server (pid ${pid}) on this data folder that no Mnemo process owns`);
      await stopPid(pid);
    }
  }

  /**
   * Before a server starts (the start lock held, no server adopted): purges Chroma's log of what was
   * erased since the last purge (store/erasure.ts). A failure is logged and the server starts anyway;
   * the ids stay pending for the next start or `mnemo compact`.
   */
  private purgeErased(): void {
    try {
      const { result, skipped } = purgePending(this.opts.dataDir);
      if (skipped) this.opts.log?.(`Erasure: ${skipped}; it is retried at the next start.`);
      else if (result) this.opts.log?.(purgeLine(result));
    } catch (e) {
      this.opts.log?.(
        `Erasure: Chroma's log could not be compacted (${e instanceof Error ? e.message : String(e)}); it is retried at the next start.`,
      );
    }
  }

  /**
   * After this process stopped its own server: purges what was erased meanwhile, so a delete from the CLI
   * (or a window that closes) leaves Chroma's files when the server stops, not only at the next start.
   * Only if the start lock is free at once: another process starting Chroma now is never kept waiting.
   */
  private purgeAfterStop(): void {
    try {
      if (readPending(this.opts.dataDir).ids.length === 0 || !this.tryStartLock()) return;
    } catch (e) {
      this.opts.log?.(
        `Erasure: ${e instanceof Error ? e.message : String(e)}; it is retried at the next start.`,
      );
      return;
    }
    try {
      this.purgeErased();
    } finally {
      rmSync(this.lockFile, { force: true });
    }
  }

  /**
   * `mnemo compact`: purges Chroma's log of every erased memory (the pending ids and every id whose last
   * row is a delete) with no server running. Skips, with one sentence, while a server runs on this data
   * folder (its owner keeps it; stopping another process's server under it would fail its requests).
   */
  async compact(): Promise<{ result?: PurgeResult; skipped?: string }> {
    if (this.opts.url) return { skipped: 'Mnemo uses a remote Chroma server, whose log is its own' };
    const info = this.readServerFile();
    if (info && pidAlive(info.pid)) {
      const owner =
        info.owner_pid === process.pid
          ? 'this process'
          : pidAlive(info.owner_pid)
            ? `another Mnemo process (pid ${info.owner_pid})`
            : 'a Mnemo process that exited (the next Mnemo start stops it)';
      return {
        skipped: `a Chroma server (pid ${info.pid}) of ${owner} is running on this data folder; run this again once it has stopped`,
      };
    }
    if (!existsSync(join(this.dbDir, 'chroma.sqlite3'))) return {};
    return this.withStartLock(async () => purgePending(this.opts.dataDir, { deleted: true }));
  }

  private async spawnServer(): Promise<ChromaEndpoint> {
    if (balanceReserve(this.opts.dataDir) === 'released')
      this.opts.log?.(
        `The disk is full: released Mnemo's ${RESERVE_BYTES / 1024 / 1024} MiB reserve (${reserveFile(this.opts.dataDir)}) so the store can open; free some space.`,
      );
    this.purgeErased();
    const previous = this.readServerFile();
    const refused = this.isolationRefused();
    if (refused && !this.opts.allowUnisolated)
      throw new StoreUnavailableError(
        `Mnemo's memory store cannot be isolated from other local users here (${refused.replace(/[.。]\s*$/, '')}), so it is not started; set mnemo.chroma.allowUnisolated (MNEMO_CHROMA_ALLOW_UNISOLATED=1) to run it on 127.0.0.1 anyway, where any local user could read and change your memories, or use a Chroma server of your own (mnemo.chroma.url).`,
      );
    const port = refused ? await freePort(previous?.port) : 0;
    const cli = chromaCliPath();
    if (!existsSync(cli))
      throw new StoreUnavailableError(
        `The embedded Chroma server is missing (${cli}); reinstall Mnemo or set mnemo.chroma.url.`,
      );
    mkdirSync(join(this.opts.dataDir, 'logs'), { recursive: true, mode: 0o700 });
    this.logStream ??= this.openLog();
    let command = process.execPath;
    let args = [cli, 'run', '--path', this.dbDir, '--port', String(port), '--host', '127.0.0.1'];
    if (refused) {
      this.opts.log?.(
        `Starting Chroma on 127.0.0.1:${port} (data ${this.dbDir}); not isolated from other local users: ${refused}`,
      );
    } else {
      ({ command, args } = isolatedCommand(this.socketPath, this.dbDir));
      rmSync(this.socketPath, { force: true });
      this.opts.log?.(
        `Starting Chroma in a private network namespace, reachable only through ${this.socketPath} (data ${this.dbDir})`,
      );
    }
    // The server creates its files 0600 (the umask is inherited at spawn; the isolated host sets its own).
    const umask = process.umask(0o077);
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        // Chroma keeps glibc's default malloc arenas: with two, its filtered queries were 7-10 ms slower at
        // p50 (docs/benchmarks.md, "Bulk import's memory") for 13 MB less at the peak of an import.
        env: { ...defaultArenasEnv(), NO_COLOR: '1' },
      });
    } finally {
      process.umask(umask);
    }
    child.once('error', () => undefined); // a spawn failure also ends in 'exit'
    this.child = child;
    child.stdout?.pipe(this.logStream, { end: false });
    child.stderr?.pipe(this.logStream, { end: false });
    let exited = false;
    child.once('exit', (code, signal) => {
      exited = true;
      if (this.child === child) this.child = undefined;
      this.onChildExit(code, signal);
    });
    const up = () =>
      refused ? heartbeat('127.0.0.1', port, false, undefined, 500) : socketHeartbeat(this.socketPath, 500);
    const deadline = Date.now() + (this.opts.startTimeoutMs ?? 30_000);
    while (Date.now() < deadline) {
      if (exited) break;
      if (await up()) {
        if (this.stopping) break; // stop() came while it started: it is killed below, never left running
        failpoint('chroma-spawned');
        const info: ServerFile = refused
          ? { pid: child.pid!, port, started_at: new Date().toISOString(), owner_pid: process.pid }
          : {
              pid: child.pid!,
              socket: this.socketPath,
              started_at: new Date().toISOString(),
              owner_pid: process.pid,
            };
        try {
          replaceFile(this.serverFile, JSON.stringify(info));
        } catch (e) {
          // A full disk: this process still uses the server; other processes cannot adopt it meanwhile.
          rmSync(this.serverFile, { force: true });
          this.opts.log?.(writeFailure('the Chroma server file', e).message);
        }
        this.endpoint = refused
          ? tcpEndpoint(child.pid!, port, refused, false)
          : this.socketEndpoint(child.pid!, false);
        return this.endpoint;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGKILL');
    if (this.stopping)
      throw new StoreUnavailableError('Mnemo is shutting down, so the memory store is closed.');
    throw new StoreUnavailableError(
      `The embedded Chroma server did not start within ${Math.round((this.opts.startTimeoutMs ?? 30_000) / 1000)} s; see ${join(this.opts.dataDir, 'logs', 'chroma.log')}.`,
    );
  }

  private health(ok: boolean, message: string): void {
    this.unhealthy = !ok;
    this.opts.onHealth?.(ok, message);
  }

  private onChildExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.endpoint = undefined;
    if (this.stopping) return;
    const now = Date.now();
    const window = this.opts.restartWindowMs ?? 5 * 60_000;
    this.restarts = this.restarts.filter((t) => now - t < window);
    const what = signal ? `was killed (${signal})` : `exited with code ${code}`;
    if (this.restarts.length >= (this.opts.maxRestarts ?? 5)) {
      this.health(
        false,
        `The embedded Chroma server ${what} and crashed too often to restart automatically; run "Mnemo: Restart Sidecar".`,
      );
      return;
    }
    this.restarts.push(now);
    this.opts.log?.(`Chroma ${what}; restarting`);
    this.health(false, `The embedded Chroma server ${what}; restarting it.`);
    void this.ensure().then(
      () => undefined, // ensure() reports "running again"
      (e: unknown) => this.health(false, e instanceof Error ? e.message : String(e)),
    );
  }

  /** Stops the server if this process started it, after any start in flight has settled; afterwards {@link ensure} refuses. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.starting?.catch(() => undefined);
    const child = this.child;
    this.child = undefined;
    this.endpoint = undefined;
    const info = this.readServerFile();
    if (child && child.exitCode === null && child.signalCode === null) {
      if (info?.pid === child.pid) rmSync(this.serverFile, { force: true });
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, 5000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.kill('SIGTERM');
      });
      this.purgeAfterStop();
    }
    this.logStream?.end();
    this.logStream = undefined;
  }
}

/** An embedded server on 127.0.0.1 (not isolated: any local user can reach it). */
function tcpEndpoint(pid: number, port: number, why: string, shared: boolean): ChromaEndpoint {
  return {
    host: '127.0.0.1',
    port,
    ssl: false,
    describe: `embedded Chroma (${shared ? 'shared, ' : ''}pid ${pid}) on 127.0.0.1:${port}, not isolated from other local users: ${why}`,
    notIsolated: why,
  };
}

/**
 * Makes every file under `dir` 0600 and every folder 0700 (this user's own; others are left as they are):
 * a store an earlier version created under a 022 umask had a 0644 `chroma.sqlite3`.
 */
function ownerOnly(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const p = join(dir, name);
    try {
      const st = lstatSync(p);
      if (st.isSymbolicLink() || (process.getuid && st.uid !== process.getuid())) continue;
      if (st.isDirectory()) {
        if ((st.mode & 0o777) !== 0o700) chmodSync(p, 0o700);
        ownerOnly(p);
      } else if ((st.mode & 0o077) !== 0) chmodSync(p, st.mode & 0o700);
    } catch {
      // vanished meanwhile, or not ours to change
    }
  }
}

/**
 * Pids of this user's processes whose arguments name `dbDir` and one of `markers` (the Chroma CLI or the
 * isolated host's socket): the Chroma servers on that folder. Empty where /proc does not exist.
 */
function chromaProcesses(dbDir: string, markers: string[]): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (args.includes(dbDir) && markers.some((m) => args.includes(m))) pids.push(Number(name));
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return pids;
}

/** One line for the log and the CLI: what a purge removed and how long it took. */
export function purgeLine(r: PurgeResult): string {
  const rewrote = r.vacuumError
    ? `; the file could not be rewritten (${r.vacuumError}), the removed rows are zeroed`
    : ' and rewrote it';
  return `Erasure: removed ${r.rows} old ${r.rows === 1 ? 'row' : 'rows'} of ${r.ids} erased ${r.ids === 1 ? 'id' : 'ids'} from Chroma's log${rewrote} (${r.bytesBefore} -> ${r.bytesAfter} bytes, ${r.ms} ms).`;
}

/** SIGTERM to a server that is not our child, SIGKILL if it is still there after 5 s. */
async function stopPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + 5000;
  while (pidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (pidAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}
