/**
 * The sidecar over stdio: speaks JSON-RPC (LSP framing) on stdin/stdout. The extension starts it with
 * vscode-languageclient, which sends `initialize` with our config as `initializationOptions`;
 * `mnemo serve` runs the same thing from the CLI. main.ts is the process entry.
 */
import {
  CancellationTokenSource,
  createMessageConnection,
  NotificationType,
  NotificationType0,
  RequestType,
  RequestType0,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { mkdirSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from './config';
import { createEmbeddingProvider } from './embed/index';
import { errorMessage } from './shared/errors';
import type { LogLevel } from './core';
import {
  ConfigChangedNotification,
  LlmCompleteRequest,
  CaptureProcessedNotification,
  LedgerChangedNotification,
  LogNotification,
  MemoriesChangedNotification,
  ProgressNotification,
  StatusNotification,
  type InitializationOptions,
} from './protocol';
import { watchLedger } from './lifecycle/ledger';
import { RecentlyAnnounced, tailAuditLog } from './lifecycle/auditTail';
import { registerHandlers } from './server';
import { MnemoService } from './service';
import { MNEMO_VERSION } from './shared/version';

const Initialize = new RequestType<
  { initializationOptions?: InitializationOptions; processId?: number | null },
  unknown,
  void
>('initialize');
const Shutdown = new RequestType0<null, void>('shutdown');
const Exit = new NotificationType0('exit');
const Initialized = new NotificationType<unknown>('initialized');

export function serveStdio(overrides: InitializationOptions = {}): MessageConnection {
  const conn = createMessageConnection(
    new StreamMessageReader(process.stdin),
    new StreamMessageWriter(process.stdout),
  );
  let service: MnemoService | undefined;
  let logFile: string | undefined;
  /** One line at its level: to the extension (mnemo/log) and to logs/sidecar.log. */
  const log = (line: string, level: LogLevel = 'info') => {
    const stamped = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${line}`;
    void conn.sendNotification(LogNotification, { level, message: line });
    if (logFile) {
      try {
        appendFileSync(logFile, stamped + '\n');
      } catch {
        // logging must never take the sidecar down
      }
    }
  };

  const shutdown = async () => {
    const s = service;
    service = undefined;
    await s?.dispose();
  };

  conn.onRequest(Initialize, (params) => {
    const config = resolveConfig({ ...(params?.initializationOptions ?? {}), ...overrides });
    mkdirSync(join(config.dataDir, 'logs'), { recursive: true });
    logFile = join(config.dataDir, 'logs', 'sidecar.log');
    const embedder = createEmbeddingProvider({
      ...config.embedding,
      cacheDir: join(config.dataDir, 'models'),
      onProgress: (p) => void conn.sendNotification(StatusNotification, { health: 'ok', message: p.message }),
      log: (line) => log(line),
    });
    const announced = new RecentlyAnnounced();
    service = new MnemoService({
      config,
      embedder,
      llmDeps: {
        // provider "vscode-lm": the extension runs the prompt through vscode.lm; an abort cancels the request.
        vscodeLm: (params, signal) => {
          const cts = new CancellationTokenSource();
          signal.addEventListener('abort', () => cts.cancel(), { once: true });
          return conn.sendRequest(LlmCompleteRequest, params, cts.token).finally(() => cts.dispose());
        },
      },
      events: {
        log,
        status: (s) => void conn.sendNotification(StatusNotification, s),
        changed: (projectIds, ids) => {
          announced.note(ids);
          void conn.sendNotification(MemoriesChangedNotification, { project_ids: projectIds, ids });
        },
        progress: (p) => void conn.sendNotification(ProgressNotification, p),
        captured: (p) => void conn.sendNotification(CaptureProcessedNotification, p),
      },
    });
    registerHandlers(conn, service, (line) => log(line, 'error'));
    // Changes by other processes on this data folder (MCP servers, the CLI) refresh the views too.
    // Its own writes come back through the tail as well: announced once (RecentlyAnnounced).
    const tail = tailAuditLog(join(config.dataDir, 'audit', 'audit.jsonl'), (projectIds, ids) => {
      const rest = announced.unannounced(projectIds, ids);
      if (rest)
        void conn.sendNotification(MemoriesChangedNotification, {
          project_ids: rest.projectIds,
          ids: rest.ids,
        });
    });
    // What agents are shown (by any process) reaches the "What My Agents Saw" view.
    const ledger = watchLedger(join(config.dataDir, 'ledger'), () => {
      void conn.sendNotification(LedgerChangedNotification, {});
    });
    conn.onClose(() => {
      tail.close();
      ledger.close();
    });
    log(`Mnemo sidecar ${MNEMO_VERSION} (pid ${process.pid}), data in ${config.dataDir}`);
    const svc = service;
    void svc.start().catch((e: unknown) => {
      log(`Start failed: ${errorMessage(e)}`, 'error');
      void conn.sendNotification(StatusNotification, { health: 'error', message: errorMessage(e) });
    });
    return { capabilities: {}, serverInfo: { name: 'mnemo-sidecar', version: MNEMO_VERSION } };
  });
  conn.onNotification(Initialized, () => undefined);
  conn.onNotification(ConfigChangedNotification, (options) => {
    service?.updateSettings(resolveConfig({ ...(options ?? {}), ...overrides }));
  });
  conn.onRequest(Shutdown, async () => {
    await shutdown();
    return null;
  });
  conn.onNotification(Exit, () => {
    void shutdown().finally(() => process.exit(0));
  });
  conn.onClose(() => {
    void shutdown().finally(() => process.exit(0));
  });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      void shutdown().finally(() => process.exit(0));
    });
  }
  conn.listen();
  return conn;
}
