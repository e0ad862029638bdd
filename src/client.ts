/**
 * Starts the sidecar (sidecar/main.ts bundled as dist/sidecar.js) with vscode-languageclient over stdio,
 * and restarts it after a crash, within a budget: more than {@link MAX_RESTARTS} crashes in
 * {@link RESTART_WINDOW_MS} and we stop and say so in the status bar instead of looping.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  RevealOutputChannelOn,
  TransportKind,
  type ErrorHandler,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import type { NotificationType, RequestType } from 'vscode-jsonrpc';
import type { InitializationOptions } from '../sidecar/protocol';
import { currentUser } from '../sidecar/shared/identity';
import { arenaEnv } from '../sidecar/shared/processEnv';
import { clientLine } from './clientLog';
import { config } from './config';

export const MAX_RESTARTS = 5;
export const RESTART_WINDOW_MS = 3 * 60 * 1000;

/** Counts crashes in a sliding window. */
export class RestartBudget {
  private crashes: number[] = [];
  constructor(
    private readonly max = MAX_RESTARTS,
    private readonly windowMs = RESTART_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}
  /** Records a crash; true when another restart is still allowed. */
  recordCrash(): boolean {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < this.windowMs);
    this.crashes.push(t);
    return this.crashes.length <= this.max;
  }
  get recent(): number {
    const t = this.now();
    return this.crashes.filter((c) => t - c < this.windowMs).length;
  }
  reset(): void {
    this.crashes = [];
  }
}

export interface Secrets {
  chromaToken?: string;
  llmApiKey?: string;
  /** Saved only when the user asked to keep it; needed by scheduled backups. */
  backupPassword?: string;
}

/** user@machine, recorded with every memory and audit entry (sidecar/shared/identity.ts, the same in every process). */
export { currentUser };

/**
 * The sidecar's configuration (protocol.ts `InitializationOptions`) from the settings and secrets, each
 * under its setting's name; sent in `initialize` and `mnemo/config/changed`. Empty settings are left out, so the
 * sidecar's own defaults and MNEMO_* environment variables apply.
 */
export function buildInitializationOptions(dataDir: string, secrets: Secrets): InitializationOptions {
  const llmProvider = config.llm.provider();
  const embeddingProvider = config.embedding.provider();
  return {
    dataDir,
    user: currentUser(),
    chromaUrl: config.chroma.url() || undefined,
    chromaToken: secrets.chromaToken || undefined,
    chromaAllowUnisolated: config.chroma.allowUnisolated() || undefined,
    embedding: {
      provider: embeddingProvider,
      model: config.embedding.model() || undefined,
      modelPath: config.embedding.modelPath() || undefined,
      remoteHost: config.embedding.remoteHost() || undefined,
      baseUrl: config.embedding.baseUrl() || undefined,
      apiKey: embeddingProvider === 'openai' ? secrets.llmApiKey || undefined : undefined,
    },
    episodes: { keep: config.episodes.keep(), retentionDays: config.episodes.retentionDays() },
    review: { archivePendingAfterDays: config.review.archivePendingAfterDays() },
    ledger: { retentionDays: config.ledger.retentionDays() },
    pipeline: {
      dedupDistance: config.pipeline.dedupDistance(),
      reviewScoreThreshold: config.pipeline.reviewScoreThreshold(),
    },
    recall: {
      topK: config.recall.topK(),
      minConfidence: config.recall.minConfidence(),
      tokenBudget: config.recall.tokenBudget(),
    },
    decay: {
      factor: config.decay.factor(),
      confirmedFactor: config.decay.confirmedFactor(),
      floor: config.decay.floor(),
    },
    backup: {
      schedule: config.backup.schedule(),
      folder: config.backup.folder() || undefined,
      keep: config.backup.keep(),
      password: secrets.backupPassword || undefined,
    },
    llm: {
      provider: llmProvider,
      baseUrl: config.llm.baseUrl() || undefined,
      model: config.llm.model() || undefined,
      apiKey: llmProvider === 'openai-compatible' ? secrets.llmApiKey || undefined : undefined,
    },
  };
}

export interface ClientHooks {
  log: vscode.LogOutputChannel;
  /** Evaluated at every (re)start, so a restart after a crash picks up current settings. */
  initializationOptions: () => InitializationOptions;
  /** Called when the budget is spent and the client will not restart again. */
  onGiveUp: (message: string) => void;
  /** Called before an automatic restart after a crash. */
  onCrash: (restartsInWindow: number) => void;
}

export function createClient(
  extensionUri: vscode.Uri,
  budget: RestartBudget,
  hooks: ClientHooks,
): LanguageClient {
  const module = vscode.Uri.joinPath(extensionUri, 'dist', 'sidecar.js').fsPath;
  // Merged over the extension host's environment by the language client.
  const env = arenaEnv();
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.stdio, options: { env } },
    debug: {
      module,
      transport: TransportKind.stdio,
      options: { execArgv: ['--nolazy', '--enable-source-maps'], env },
    },
  };
  const errorHandler: ErrorHandler = {
    error: (error, _message, count) => {
      hooks.log.error(`Sidecar connection error (${count ?? 1}): ${error.message}`);
      return { action: (count ?? 1) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
    },
    closed: () => {
      if (budget.recordCrash()) {
        hooks.onCrash(budget.recent);
        hooks.log.warn(
          `Sidecar exited; restarting (${budget.recent} of ${MAX_RESTARTS} restarts in ${RESTART_WINDOW_MS / 60000} minutes).`,
        );
        return { action: CloseAction.Restart, handled: true };
      }
      const message = `Mnemo's memory service crashed ${budget.recent} times in ${RESTART_WINDOW_MS / 60000} minutes and was stopped; see "Mnemo: Show Output", then run "Mnemo: Restart Sidecar".`;
      hooks.log.error(message);
      hooks.onGiveUp(message);
      return { action: CloseAction.DoNotRestart, handled: true };
    },
  };
  const clientOptions: LanguageClientOptions = {
    // Mnemo is not a language server: no documents are synchronised.
    documentSelector: [],
    outputChannel: leveledChannel(hooks.log),
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: hooks.initializationOptions,
    errorHandler,
    initializationFailedHandler: (error) => {
      hooks.log.error(
        `Sidecar failed to initialize: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      return false;
    },
  };
  return new LanguageClient('mnemo', 'Mnemo Sidecar', serverOptions, clientOptions);
}

/**
 * The log as the language client sees it: its `[Error - time] …` lines are written at the level they name
 * (clientLog.ts), so a normal stop is not an error; everything else passes through.
 */
function leveledChannel(log: vscode.LogOutputChannel): vscode.LogOutputChannel {
  return new Proxy(log, {
    get(target, prop, receiver) {
      if (prop === 'appendLine')
        return (line: string) => {
          const parsed = clientLine(line);
          if (parsed) target[parsed.level](parsed.message);
          else target.appendLine(line);
        };
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Typed request through a client. protocol.ts builds its types with the root `vscode-jsonrpc`, which
 * may be a different copy from the one inside vscode-languageclient (the classes are then nominally
 * different), so we send by method name and keep the types from the constant.
 */
export function sendRequest<P, R>(
  client: LanguageClient,
  type: RequestType<P, R, void>,
  params: P,
  token?: vscode.CancellationToken,
): Promise<R> {
  return client.sendRequest<R>(type.method, params, token);
}

export function sendNotification<P>(
  client: LanguageClient,
  type: NotificationType<P>,
  params: P,
): Promise<void> {
  return client.sendNotification(type.method, params);
}

export function onNotification<P>(
  client: LanguageClient,
  type: NotificationType<P>,
  handler: (params: P) => void,
): vscode.Disposable {
  return client.onNotification(type.method, handler);
}

export function onRequest<P, R>(
  client: LanguageClient,
  type: RequestType<P, R, void>,
  handler: (params: P, token: vscode.CancellationToken) => Promise<R>,
): vscode.Disposable {
  return client.onRequest(type.method, (params: P, token: vscode.CancellationToken) =>
    handler(params, token),
  );
}
