/**
 * The one context object (rust-analyzer `ctx.ts`). It owns two lifetimes:
 * - extension lifetime: views, commands, status bar, capture, listeners (`extensionDisposables`);
 * - sidecar lifetime: the LanguageClient and its notification/request handlers (`sidecarDisposables`),
 *   thrown away on every stop/restart.
 * Commands are registered once at activation; while the sidecar is down, `request` throws a
 * {@link SidecarDownError} whose message says so, and the command wrapper shows it.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { State } from 'vscode-languageclient/node';
import type { NotificationType, RequestType } from 'vscode-jsonrpc';
import {
  ConfigChangedNotification,
  CaptureProcessedNotification,
  LedgerChangedNotification,
  LlmCompleteRequest,
  LogNotification,
  MemoriesChangedNotification,
  ProgressNotification,
  StatusNotification,
  type MemoriesChangedParams,
  type ProgressParams,
  type CaptureProcessedParams,
  type StatusParams,
  ErrorCodes,
} from '../sidecar/protocol';
import {
  buildInitializationOptions,
  createClient,
  onNotification,
  onRequest,
  RestartBudget,
  sendNotification,
  sendRequest,
  type Secrets,
} from './client';
import { REQUIRES_SIDECAR_RESTART, SECRETS, SIDECAR_LIVE_SECTIONS } from './config';
import {
  describeError,
  errorCode,
  errorDetail,
  isExpected,
  logFailure,
  SidecarDownError,
  UserError,
} from './errors';
import { completeWithVscodeLm } from './llm';
import { clearProjectCache } from './projects';
import { ContextKey } from './shared/contextValues';
import { Command, type CommandId } from './commandIds';

export type SidecarState = 'starting' | 'running' | 'stopped' | 'failed';

/** What changed: these projects' memories (these ids, when known), or everything when `projectIds` is absent. */
export interface MemoriesChange {
  projectIds?: string[];
  ids?: string[];
}

/** How long a command waits for a sidecar that is still starting before saying it is down. */
const START_WAIT_MS = 60_000;

export class Ctx implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  /** Extension lifetime. */
  private readonly extensionDisposables: vscode.Disposable[] = [];
  /** Sidecar lifetime: disposed on every stop/restart. */
  private sidecarDisposables: vscode.Disposable[] = [];

  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;
  private gaveUp = false;
  private _state: SidecarState = 'stopped';
  private downReason = 'it has not started yet';
  private readonly budget = new RestartBudget();
  private secrets: Secrets = {};
  private _status: StatusParams | undefined;
  private readonly progress = new Map<string, { report: (p: ProgressParams) => void; done: () => void }>();

  private readonly stateEmitter = new vscode.EventEmitter<SidecarState>();
  /** Fires on every sidecar state change. */
  readonly onDidChangeState = this.stateEmitter.event;
  private readonly statusEmitter = new vscode.EventEmitter<StatusParams>();
  /** Fires on `mnemo/status`. */
  readonly onDidChangeStatus = this.statusEmitter.event;
  private readonly memoriesEmitter = new vscode.EventEmitter<MemoriesChange>();
  /**
   * Fires on `mnemo/memories/changed` and when a person asks for a refresh: the one path by which the
   * views reload (one-way data flow; no command refreshes a view by hand).
   */
  readonly onDidChangeMemories = this.memoriesEmitter.event;
  private readonly capturedEmitter = new vscode.EventEmitter<CaptureProcessedParams>();
  /** Fires on `mnemo/capture/processed`: what a queued capture taught (terminal capture says "nothing kept — why?"). */
  readonly onDidProcessCapture = this.capturedEmitter.event;
  private readonly ledgerEmitter = new vscode.EventEmitter<void>();
  /** Fires on `mnemo/ledger/changed`: something was served to an agent or a person ("What My Agents Saw"). */
  readonly onDidChangeLedger = this.ledgerEmitter.event;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('Mnemo', { log: true });
    this.pushExtension(
      this.log,
      this.stateEmitter,
      this.statusEmitter,
      this.memoriesEmitter,
      this.ledgerEmitter,
      this.capturedEmitter,
    );
    this.pushExtension(
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
      vscode.workspace.onDidChangeWorkspaceFolders(() => clearProjectCache()),
      extension.secrets.onDidChange((e) => void this.onSecretChanged(e.key)),
    );
    void vscode.commands.executeCommand('setContext', ContextKey.SidecarState, this._state);
  }

  // ------------------------------------------------------------------ lifetimes

  /** Adds to the extension-lifetime cleanup list. */
  pushExtension(...disposables: vscode.Disposable[]): void {
    this.extensionDisposables.push(...disposables);
  }

  /** Adds to the sidecar-lifetime cleanup list (disposed when the sidecar stops or restarts). */
  pushSidecar(...disposables: vscode.Disposable[]): void {
    this.sidecarDisposables.push(...disposables);
  }

  dispose(): void {
    for (const d of this.sidecarDisposables.splice(0)) d.dispose();
    for (const d of this.extensionDisposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (err) {
        console.error(err);
      }
    }
  }

  get state(): SidecarState {
    return this._state;
  }

  get isRunning(): boolean {
    return this._state === 'running';
  }

  /** The last `mnemo/status` (undefined before the first). */
  get status(): StatusParams | undefined {
    return this._status;
  }

  /** Why the sidecar is down (for the status bar tooltip). */
  get reason(): string {
    return this.downReason;
  }

  private setState(state: SidecarState, reason?: string): void {
    if (reason) this.downReason = reason;
    if (state === this._state) return;
    this._state = state;
    this.log.info(`Sidecar ${state}${reason ? `: ${reason}` : ''}`);
    void vscode.commands.executeCommand('setContext', ContextKey.SidecarState, state);
    this.stateEmitter.fire(state);
  }

  // ------------------------------------------------------------------ start / stop

  /** Starts the sidecar in the background; resolves when it runs or failed (never rejects). */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<void> {
    this.gaveUp = false;
    this.setState('starting', 'it is starting');
    await this.loadSecrets();
    const client = createClient(this.extension.extensionUri, this.budget, {
      log: this.log,
      initializationOptions: () =>
        buildInitializationOptions(this.extension.globalStorageUri.fsPath, this.secrets),
      onCrash: (n) => this.setState('starting', `it crashed and is restarting (${n} recent restarts)`),
      onGiveUp: (message) => {
        this.gaveUp = true;
        this.setState('failed', 'it crashed repeatedly and was stopped');
        void vscode.window.showErrorMessage(message, 'Restart Sidecar', 'Show Output').then((choice) => {
          if (choice === 'Restart Sidecar') void vscode.commands.executeCommand(Command.restartSidecar);
          else if (choice === 'Show Output') this.log.show();
        });
      },
    });
    this.client = client;
    this.pushSidecar(
      client.onDidChangeState((e) => {
        if (e.newState === State.Running) this.setState('running');
        else if (e.newState === State.Starting) this.setState('starting', 'it is starting');
        else if (
          e.newState === State.Stopped &&
          !this.stopping &&
          !this.gaveUp &&
          this._state === 'running'
        ) {
          this.setState('starting', 'it stopped and is restarting');
        }
      }),
      onNotification(client, StatusNotification, (p) => {
        this._status = p;
        this.statusEmitter.fire(p);
      }),
      onNotification(client, MemoriesChangedNotification, (p: MemoriesChangedParams) =>
        this.memoriesEmitter.fire(p.project_ids?.length ? { projectIds: p.project_ids, ids: p.ids } : {}),
      ),
      onNotification(client, LedgerChangedNotification, () => this.ledgerEmitter.fire()),
      onNotification(client, CaptureProcessedNotification, (p) => this.capturedEmitter.fire(p)),
      onNotification(client, ProgressNotification, (p) => this.onProgress(p)),
      onNotification(client, LogNotification, (p) =>
        this.log[p.level === 'error' || p.level === 'warn' ? p.level : 'info'](`[sidecar] ${p.message}`),
      ),
      onRequest(client, LlmCompleteRequest, (p, token) => completeWithVscodeLm(p, token)),
    );
    try {
      await client.start();
      this.setState('running');
    } catch (err) {
      this.log.error(`Starting the sidecar failed: ${errorDetail(err)}`);
      if (this.client === client) {
        this.setState('failed', `it failed to start: ${describeError(err).replace(/\.$/, '')}`);
      }
    }
  }

  /** Stops the sidecar (deactivate returns this). */
  async stop(timeout = 5000): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.stopping = true;
    for (const d of this.sidecarDisposables.splice(0)) d.dispose();
    for (const p of this.progress.values()) p.done();
    this.progress.clear();
    try {
      if (client && client.state !== State.Stopped) await client.stop(timeout);
    } catch (err) {
      this.log.warn(`Stopping the sidecar: ${errorDetail(err)}`);
    } finally {
      this.stopping = false;
      this.setState('stopped', 'it was stopped');
    }
  }

  async restart(): Promise<void> {
    if (this.starting) await this.starting;
    this.budget.reset();
    await this.stop();
    await this.start();
  }

  /** Resolves when the sidecar runs; rejects with a SidecarDownError after `timeoutMs` or when it failed. */
  async ready(timeoutMs = START_WAIT_MS): Promise<void> {
    await this.runningClient(timeoutMs);
  }

  private async runningClient(timeoutMs = START_WAIT_MS): Promise<LanguageClient> {
    if (this._state === 'running' && this.client) return this.client;
    if (this._state === 'starting') {
      const running = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          sub.dispose();
          resolve(false);
        }, timeoutMs);
        const sub = this.onDidChangeState((s) => {
          if (s === 'starting') return;
          clearTimeout(timer);
          sub.dispose();
          resolve(s === 'running');
        });
      });
      if (running && this.client) return this.client;
      if (this._state === 'starting') throw new SidecarDownError('it is still starting');
    }
    throw new SidecarDownError(this.downReason);
  }

  // ------------------------------------------------------------------ messages

  /** Sends a protocol request (waits for a starting sidecar; throws SidecarDownError when it is down). */
  async request<P, R>(
    type: RequestType<P, R, void>,
    params: P,
    token?: vscode.CancellationToken,
  ): Promise<R> {
    const client = await this.runningClient();
    return sendRequest(client, type, params, token);
  }

  async notify<P>(type: NotificationType<P>, params: P): Promise<void> {
    const client = await this.runningClient();
    await sendNotification(client, type, params);
  }

  /**
   * Tells every view that everything may have changed (Refresh, a NotFound answer, writes by another
   * process such as the CLI, which the sidecar cannot see): raised like a change notification.
   */
  announceChange(change: MemoriesChange = {}): void {
    this.memoriesEmitter.fire(change);
  }

  // ------------------------------------------------------------------ commands

  /** Registers a command whose failures are logged with their stack and shown as one sentence. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- command arguments come untyped from VS Code
  registerCommand(id: CommandId, handler: (...args: any[]) => unknown): void {
    this.pushExtension(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await handler(...args);
        } catch (err) {
          this.reportError(err, id);
          return undefined;
        }
      }),
    );
  }

  /** Logs the stack and shows one sentence (an expected {@link UserError}: a warning, logged without a stack). */
  reportError(err: unknown, where: string): void {
    const message = describeError(err);
    if (err instanceof UserError) {
      // An expected case (nothing selected, no file reference…): one sentence, no stack, no red toast.
      this.log.info(`${where}: ${message}`);
      void vscode.window.showWarningMessage(message);
      return;
    }
    logFailure(this.log, where, err);
    if (err instanceof SidecarDownError) {
      void vscode.window.showWarningMessage(message, 'Restart Sidecar', 'Show Output').then((choice) => {
        if (choice === 'Restart Sidecar') void vscode.commands.executeCommand(Command.restartSidecar);
        else if (choice === 'Show Output') this.log.show();
      });
      return;
    }
    // The memory is gone (another window, the CLI): what the views show is stale.
    if (errorCode(err) === ErrorCodes.NotFound) this.announceChange();
    // Expected (bad input, a memory gone, the store or model away): a warning, not a red error.
    if (isExpected(err)) void vscode.window.showWarningMessage(message);
    else void vscode.window.showErrorMessage(message);
  }

  // ------------------------------------------------------------------ settings and secrets

  private async loadSecrets(): Promise<void> {
    try {
      this.secrets = {
        chromaToken: await this.extension.secrets.get(SECRETS.chromaToken),
        llmApiKey: await this.extension.secrets.get(SECRETS.llmApiKey),
        backupPassword: await this.extension.secrets.get(SECRETS.backupPassword),
      };
    } catch (err) {
      this.log.warn(`Reading secrets failed: ${errorDetail(err)}`);
    }
  }

  private async onSecretChanged(key: string): Promise<void> {
    if (key !== SECRETS.chromaToken && key !== SECRETS.llmApiKey && key !== SECRETS.backupPassword) return;
    await this.loadSecrets();
    if (key === SECRETS.chromaToken) await this.promptRestart('The Chroma token changed.');
    else await this.pushConfig();
  }

  private onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('mnemo')) return;
    if (REQUIRES_SIDECAR_RESTART.some((k) => e.affectsConfiguration(k))) {
      void this.promptRestart('Mnemo settings that the memory service reads at start changed.');
    } else if (SIDECAR_LIVE_SECTIONS.some((k) => e.affectsConfiguration(k))) {
      void this.pushConfig();
    }
  }

  /** Sends the whole configuration with `mnemo/config/changed` (settings that need no restart). */
  async pushConfig(): Promise<void> {
    if (!this.isRunning) return;
    try {
      await this.notify(
        ConfigChangedNotification,
        buildInitializationOptions(this.extension.globalStorageUri.fsPath, this.secrets),
      );
    } catch (err) {
      this.log.warn(`Sending the new settings failed: ${errorDetail(err)}`);
    }
  }

  private async promptRestart(why: string): Promise<void> {
    if (this._state === 'stopped') return;
    const choice = await vscode.window.showInformationMessage(
      `${why} Restart the memory service to apply them?`,
      'Restart Now',
      'Later',
    );
    if (choice === 'Restart Now') await vscode.commands.executeCommand(Command.restartSidecar);
  }

  // ------------------------------------------------------------------ progress

  /**
   * Runs a long request with a cancellable notification: the sidecar's mnemo/progress messages for this
   * request's token drive it, and Cancel cancels the request.
   */
  async requestWithProgress<P extends { progress_token?: string }, R>(
    type: RequestType<P, R, void>,
    params: P,
    title: string,
  ): Promise<R> {
    const token = `${type.method}#${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      async (progress, cancel) => {
        let last = 0;
        this.progress.set(token, {
          report: (u) => {
            const increment = u.percent !== undefined ? Math.max(0, u.percent - last) : undefined;
            if (u.percent !== undefined) last = u.percent;
            progress.report({ message: u.message, increment });
          },
          done: () => undefined,
        });
        try {
          return await this.request(type, { ...params, progress_token: token }, cancel);
        } finally {
          this.progress.delete(token);
        }
      },
    );
  }

  private onProgress(p: ProgressParams): void {
    let entry = this.progress.get(p.token);
    if (!entry) {
      let report: (p: ProgressParams) => void = () => undefined;
      let done: () => void = () => undefined;
      void vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'Mnemo' },
        (progress) => {
          let last = 0;
          let idle: NodeJS.Timeout | undefined;
          return new Promise<void>((resolve) => {
            done = () => {
              if (idle) clearTimeout(idle);
              this.progress.delete(p.token);
              resolve();
            };
            report = (u) => {
              const increment = u.percent !== undefined ? Math.max(0, u.percent - last) : undefined;
              if (u.percent !== undefined) last = u.percent;
              progress.report({ message: u.message, increment });
              if (idle) clearTimeout(idle);
              // No end message exists in the protocol: 100% or 30 s of silence ends the indicator.
              if (u.percent !== undefined && u.percent >= 100) done();
              else idle = setTimeout(done, 30_000);
            };
          });
        },
      );
      entry = { report: (u) => report(u), done: () => done() };
      this.progress.set(p.token, entry);
    }
    this.log.info(`${p.message}${p.percent !== undefined ? ` (${Math.round(p.percent)}%)` : ''}`);
    entry.report(p);
  }
}
