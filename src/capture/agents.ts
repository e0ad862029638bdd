/**
 * Agents' sessions in the editor (the sidecar reads them; the extension only asks and shows): tells the
 * sidecar this window's capture settings (`mnemo/sources/configure`: the agents switched on, Pause Capture,
 * the exclusion globs, the folders, and where this workspace's chats are), asks the person once when it finds
 * sessions of an agent nobody answered about, and runs a capture with a cancellable progress notification and
 * one summary line per agent.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  SourcesCaptureRequest,
  SourcesConfigureRequest,
  SourcesListRequest,
  type EditorDirs,
  type SourceSummary,
} from '../../sidecar/protocol';
import type { CaptureSourceId } from '../../sidecar/shared/agentSources';
import { summaryLine } from '../../sidecar/shared/captureSummary';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { logFailure } from '../errors';
import { answerOf, consentQuestion, sessionList, toAsk, withAnswers } from '../shared/agentConsent';
import type { CapturePause } from '../shared/pause';

/** After "Not Now", the question waits this long. */
const SNOOZE_MS = 24 * 3_600_000;
const SNOOZE_KEY = 'mnemo.capture.consentSnoozedAt';

export class AgentSessions implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when what the Sources view shows may have changed (a capture, a setting). */
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  /** What a consent check is doing now (undefined: none runs). */
  private busy: 'listing' | 'question' | 'answering' | 'pick' | 'capturing' | undefined;
  /** Counts consent checks: a question superseded by the person's own request knows it was. */
  private round = 0;
  /** Counts the answers acted on (a late answer to a superseded question counts only if none came since). */
  private answered = 0;
  /** Resolved when no consent check runs any more. */
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly ctx: Ctx,
    private readonly pause: CapturePause,
  ) {
    this.disposables.push(
      this.emitter,
      ctx.onDidChangeState((s) => {
        if (s !== 'running') return;
        void this.configure();
        void this.checkConsent(false);
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (
          !e.affectsConfiguration('mnemo.capture.sources') &&
          !e.affectsConfiguration('mnemo.capture.excludeGlobs')
        )
          return;
        void this.configure();
        this.emitter.fire();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        void this.configure();
        void this.checkConsent(false);
        this.emitter.fire();
      }),
      pause.onDidChange(() => {
        void this.configure();
        this.emitter.fire();
      }),
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** This workspace's folders on disk. */
  folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => f.uri.fsPath);
  }

  /** What only the editor knows exactly: its user folder, and this workspace's storage folder (its chats). */
  editor(): EditorDirs {
    const ext = this.ctx.extension;
    const storage = ext.storageUri?.scheme === 'file' ? path.dirname(ext.storageUri.fsPath) : undefined;
    return {
      user_dir: path.dirname(path.dirname(ext.globalStorageUri.fsPath)),
      ...(storage ? { workspace_storage: storage } : {}),
    };
  }

  async list(): Promise<SourceSummary[]> {
    return (await this.ctx.request(SourcesListRequest, { folders: this.folders(), editor: this.editor() }))
      .sources;
  }

  /** Tells the sidecar this window's settings: it saves them for the CLI and hooks and watches the enabled agents. */
  async configure(): Promise<void> {
    if (!this.ctx.isRunning) return;
    try {
      await this.ctx.request(SourcesConfigureRequest, {
        folders: this.folders(),
        editor: this.editor(),
        enabled: config.capture.sources(),
        paused: this.pause.paused,
        exclude_globs: config.capture.excludeGlobs(),
      });
    } catch (err) {
      logFailure(this.ctx.log, 'Configuring agent capture', err);
    }
  }

  /** Saves the person's answers (user settings: consent is theirs, not a workspace's). */
  async setAnswers(answers: Partial<Record<CaptureSourceId, boolean>>): Promise<void> {
    const next = withAnswers(config.capture.sources(), answers);
    await vscode.workspace
      .getConfiguration('mnemo')
      .update('capture.sources', next, vscode.ConfigurationTarget.Global);
  }

  /**
   * Asks once about agents found with sessions for this workspace that nobody answered about; `interactive`:
   * the person asked (Learn from Agent Sessions…), so a snooze does not apply and every found agent is offered.
   * A question still unanswered in a notification (it may sit unseen in the notification centre, or behind Do
   * Not Disturb) does not block the person's own request: the list of agents is offered at once. An answer
   * given later to the old notification counts when the list was closed without one (it waits until the
   * list and what it started are done); after an answer in the list, the old question is out of date.
   */
  async checkConsent(interactive: boolean): Promise<void> {
    if (this.busy && !(interactive && this.busy === 'question')) {
      if (interactive)
        void vscode.window.showInformationMessage('Mnemo is already asking about agent sessions.');
      return;
    }
    if (!this.mayAsk(interactive)) return;
    let round = ++this.round;
    this.busy = 'listing';
    try {
      this.ctx.log.info(`Agent sessions: looking for sessions of ${this.folders().join(', ')}.`);
      const found = await this.list();
      const ask = interactive
        ? found.filter((s) => s.detected && s.sessions > 0)
        : toAsk(found, config.capture.sources());
      const withSessions = found.filter((s) => s.sessions > 0);
      this.ctx.log.info(
        `Agent sessions for this workspace: ${withSessions.length ? sessionList(withSessions) : 'none'}${ask.length ? `; asking about ${ask.map((s) => s.label).join(', ')}` : ''}.`,
      );
      if (ask.length === 0) {
        if (interactive)
          void vscode.window.showInformationMessage('Mnemo found no agent sessions for this workspace.');
        return;
      }
      if (interactive) return await this.answer('Choose…', ask, round);
      this.busy = 'question';
      const answeredBefore = this.answered;
      const choice = await vscode.window.showInformationMessage(
        consentQuestion(ask),
        'Learn from All',
        'Choose…',
        'Not Now',
        'Never',
      );
      if (round !== this.round) {
        // Learn from Agent Sessions… took over while this question waited.
        if (choice === undefined) return;
        while (this.busy) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
        if (this.answered !== answeredBefore) {
          this.ctx.log.info(
            `Agent sessions: the earlier question was answered "${choice}" after the list was; the list's answer stands.`,
          );
          return;
        }
        this.ctx.log.info(`Agent sessions: the earlier question was answered "${choice}".`);
        round = ++this.round;
        this.busy = 'answering';
      }
      await this.answer(choice, ask, round);
    } catch (err) {
      logFailure(this.ctx.log, 'Looking for agent sessions', err);
    } finally {
      if (round === this.round) {
        this.busy = undefined;
        for (const wake of this.idleWaiters.splice(0)) wake();
      }
    }
  }

  /** Whether a check may run now (folders on disk; a "Not Now" applies to the window's own question only). */
  private mayAsk(interactive: boolean): boolean {
    if (this.folders().length === 0) {
      const schemes = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.scheme);
      this.ctx.log.info(
        `Agent sessions: no folder on disk in this window (${schemes.length} workspace folder${schemes.length === 1 ? '' : 's'}${schemes.length ? `: ${schemes.join(', ')}` : ''}).`,
      );
      if (interactive)
        void vscode.window.showInformationMessage(
          'Mnemo learns from agent sessions of folders on this machine; open one first.',
        );
      return false;
    }
    const snoozed = this.ctx.extension.globalState.get<number>(SNOOZE_KEY);
    if (!interactive && snoozed && Date.now() - snoozed < SNOOZE_MS) {
      this.ctx.log.info(
        `Agent sessions: not asking before ${new Date(snoozed + SNOOZE_MS).toISOString()} (Not Now); Learn from Agent Sessions… asks at once.`,
      );
      return false;
    }
    return true;
  }

  /** Acts on the person's answer about these agents: all, a checked list, not now (a day's snooze) or never. */
  private async answer(choice: string | undefined, ask: SourceSummary[], round: number): Promise<void> {
    const settings = config.capture.sources();
    if (round === this.round) this.busy = 'answering';
    let chosen: SourceSummary[] = [];
    if (choice === 'Learn from All') chosen = ask;
    else if (choice === 'Choose…') {
      if (round === this.round) this.busy = 'pick';
      const picked = await vscode.window.showQuickPick(
        ask.map((s) => ({
          label: s.label,
          description: `${s.sessions} session${s.sessions === 1 ? '' : 's'} here`,
          detail: s.note,
          picked: answerOf(settings, s.id) !== false,
          source: s,
        })),
        { canPickMany: true, title: 'Mnemo: learn from which agents’ sessions?', ignoreFocusOut: true },
      );
      if (!picked) return;
      if (round === this.round) this.busy = 'answering';
      chosen = picked.map((p) => p.source);
    } else if (choice === 'Never') {
      this.answered++;
      await this.setAnswers(Object.fromEntries(ask.map((s) => [s.id, false])));
      return;
    } else {
      // Not Now, or the notification was closed without an answer.
      if (choice !== undefined) this.answered++;
      await this.ctx.extension.globalState.update(SNOOZE_KEY, Date.now());
      return;
    }
    this.answered++;
    if (round === this.round) this.busy = 'capturing';
    await this.setAnswers(Object.fromEntries(ask.map((s) => [s.id, chosen.includes(s)])));
    if (chosen.length) await this.capture(chosen.map((s) => s.id as CaptureSourceId));
  }

  /** Learns from these agents' sessions of this workspace now: progress, cancellable, one line per agent. */
  async capture(sources: CaptureSourceId[]): Promise<void> {
    const r = await this.ctx.requestWithProgress(
      SourcesCaptureRequest,
      { folders: this.folders(), editor: this.editor(), sources },
      'Mnemo: learning from agent sessions',
    );
    this.emitter.fire();
    for (const s of r.sources) {
      const line = summaryLine(s);
      this.ctx.log.info(line);
      for (const p of s.problems) this.ctx.log.warn(p);
      void vscode.window.showInformationMessage(line);
    }
    if (r.cancelled)
      void vscode.window.showInformationMessage('Mnemo: stopped reading; what was read is kept.');
  }
}
