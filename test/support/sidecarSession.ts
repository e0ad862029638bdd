/**
 * Test harness: spawns the real sidecar (dist/sidecar.js) with its real Chroma server in a temporary data
 * folder and speaks JSON-RPC to it over stdio, exactly like the extension does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before } from 'node:test';
import {
  createMessageConnection,
  NotificationType0,
  RequestType,
  RequestType0,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { resolveConfig, type SidecarConfigInput } from '../../sidecar/config';
import { createEmbeddingProvider } from '../../sidecar/embed/index';
import { MnemoService } from '../../sidecar/service';
import { childEnv } from '../../sidecar/shared/processEnv';
import {
  CaptureProcessedNotification,
  LedgerChangedNotification,
  LogNotification,
  MemoriesChangedNotification,
  StatusNotification,
  type CaptureProcessedParams,
  type LogParams,
  type MemoriesChangedParams,
  type StatusParams,
} from '../../sidecar/protocol';

export const REPO = resolve(__dirname, '..', '..');
export const SIDECAR_JS = join(REPO, 'dist', 'sidecar.js');
export const CLI_JS = join(REPO, 'bin', 'mnemo');

/** The real all-MiniLM-L6-v2 weights installed by scripts/fetch-model.sh. */
export function testModelPath(): string {
  return process.env.MNEMO_TEST_MODEL_DIR ?? join(REPO, '.cache', 'models');
}
export const TEST_MODEL = 'Xenova/all-MiniLM-L6-v2';

export function tempDataDir(prefix = 'mnemo-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function testConfig(dataDir: string, extra: SidecarConfigInput = {}): SidecarConfigInput {
  return {
    dataDir,
    ...extra,
    embedding: {
      provider: 'local',
      model: TEST_MODEL,
      modelPath: testModelPath(),
      allowRemote: false,
      ...(extra.embedding ?? {}),
    },
    user: extra.user ?? 'tester@ci',
  };
}

/** The real service in this process (as the CLI runs it) on a test data folder and the test model. */
export function inProcessService(
  dataDir: string,
  extra: SidecarConfigInput = {},
  opts: { clock?: () => Date; background?: boolean } = {},
): MnemoService {
  const config = resolveConfig(testConfig(dataDir, extra));
  const embedder = createEmbeddingProvider({
    ...config.embedding,
    cacheDir: join(dataDir, 'models'),
    log: () => undefined,
  });
  return new MnemoService({ config, embedder, clock: opts.clock, backgroundQueue: opts.background ?? false });
}

/**
 * One in-process service for the tests of a suite: started before them, disposed and its data folder
 * removed after them (node:test's `before` / `after` of the suite it is called in).
 */
export function serviceForSuite(
  extra: SidecarConfigInput = {},
  opts: { clock?: () => Date; background?: boolean } = {},
): { readonly svc: MnemoService; readonly dataDir: string } {
  const dataDir = tempDataDir();
  let svc: MnemoService | undefined;
  before(async () => {
    svc = inProcessService(dataDir, extra, opts);
    await svc.start();
  });
  after(async () => {
    await svc?.dispose();
    cleanupDataDir(dataDir);
  });
  return {
    dataDir,
    get svc(): MnemoService {
      if (!svc) throw new Error('the suite has not started its service yet');
      return svc;
    },
  };
}

const Initialize = new RequestType<unknown, { serverInfo?: { name: string } }, void>('initialize');
const Shutdown = new RequestType0<null, void>('shutdown');
const Exit = new NotificationType0('exit');

export class SidecarSession {
  readonly statuses: StatusParams[] = [];
  readonly changes: MemoriesChangedParams[] = [];
  readonly stderr: string[] = [];
  /** The sidecar's log lines (mnemo/log), with their levels. */
  readonly logs: LogParams[] = [];
  /** `mnemo/capture/processed`: what each queued capture taught. */
  readonly captured: CaptureProcessedParams[] = [];
  /** How many `mnemo/ledger/changed` arrived. */
  ledgerChanges = 0;
  private constructor(
    readonly proc: ChildProcess,
    readonly conn: MessageConnection,
    readonly dataDir: string,
  ) {}

  static async start(config: SidecarConfigInput, env: NodeJS.ProcessEnv = {}): Promise<SidecarSession> {
    const proc = spawn(process.execPath, [SIDECAR_JS], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // As the extension starts it (src/client.ts).
      env: { ...childEnv(), ...env },
    });
    const conn = createMessageConnection(
      new StreamMessageReader(proc.stdout!),
      new StreamMessageWriter(proc.stdin!),
    );
    const s = new SidecarSession(proc, conn, config.dataDir!);
    proc.stderr!.on('data', (d: Buffer) => s.stderr.push(d.toString()));
    conn.onNotification(StatusNotification, (p) => s.statuses.push(p));
    conn.onNotification(MemoriesChangedNotification, (p) => s.changes.push(p));
    conn.onNotification(LogNotification, (p) => s.logs.push(p));
    conn.onNotification(LedgerChangedNotification, () => s.ledgerChanges++);
    conn.onNotification(CaptureProcessedNotification, (p) => s.captured.push(p));
    conn.onError(() => undefined);
    conn.listen();
    await conn.sendRequest(Initialize, {
      processId: process.pid,
      initializationOptions: config,
      capabilities: {},
    });
    return s;
  }

  request<P, R>(type: RequestType<P, R, void>, params: P): Promise<R> {
    return this.conn.sendRequest(type, params);
  }

  /** Polls until the predicate holds (or throws after the timeout). */
  waitFor<T>(
    what: string,
    fn: () => Promise<T | undefined | false> | T | undefined | false,
    timeoutMs = 60_000,
  ): Promise<T> {
    return waitFor(what, fn, timeoutMs);
  }

  /** The pid of the Chroma server serving this data folder. */
  chromaPid(): number {
    return (
      JSON.parse(readFileSync(join(this.dataDir, 'chroma', 'mnemo-server.json'), 'utf8')) as { pid: number }
    ).pid;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode) return;
    const exited = new Promise<void>((r) => this.proc.once('exit', () => r()));
    try {
      await Promise.race([this.conn.sendRequest(Shutdown), new Promise((r) => setTimeout(r, 15_000))]);
      await this.conn.sendNotification(Exit);
    } catch {
      // already gone
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    this.conn.dispose();
  }

  /** kill -9, as a crash would. */
  async kill9(): Promise<void> {
    const exited = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.proc.kill('SIGKILL');
    await exited;
    this.conn.dispose();
  }
}

/** Kills an orphaned Chroma server left by a kill -9'd sidecar and removes the folder. */
export function cleanupDataDir(dataDir: string): void {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, 'chroma', 'mnemo-server.json'), 'utf8')) as {
      pid: number;
    };
    process.kill(info.pid, 'SIGKILL');
  } catch {
    // no server left
  }
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Chroma server processes serving this data folder: `chroma run --path <dir>/chroma`, or the isolated host
 * (`node -e … <binding> <socket> <dir>/chroma <port>`) in its private network namespace.
 */
export function chromaServers(dataDir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (cmd.includes(join(dataDir, 'chroma'))) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Polls every 100 ms until the predicate returns something truthy (or throws after the timeout, with the last error). */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
