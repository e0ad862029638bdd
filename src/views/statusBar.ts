/**
 * The status bar item: sidecar health (from `mnemo/status`), and the workspace-scoped memory and pending
 * counts ({@link WorkspaceCounts}, the same numbers as the Review Queue badge). Success feedback of commands
 * is flashed here too ({@link StatusBar.flash}) instead of notifications.
 */
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { projectLabel } from '../projects';
import { describeScope } from './counts';
import type { WorkspaceCounts } from './workspaceCounts';
import type { CapturePause } from '../shared/pause';
import { BuiltinCommand, Command } from '../commandIds';
import { config } from '../config';

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];

  private flashText: string | undefined;
  /** While a flash asks something ("nothing kept — why?"): its icon and what a click does. */
  private flashIcon: string | undefined;
  private flashCommand: vscode.Command | undefined;
  /** Opens the Mnemo view (the item's click when nothing is flashed). */
  private readonly openView: vscode.Command = {
    command: BuiltinCommand.showMnemoContainer,
    title: 'Open Mnemo',
  };
  private lastError: string | undefined;
  private flashTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly counts: WorkspaceCounts,
    private readonly pause: CapturePause,
  ) {
    this.item = vscode.window.createStatusBarItem('mnemo.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'Mnemo';
    // The view container's built-in "show" command: opens the Mnemo view.
    this.item.command = this.openView;
    this.disposables.push(
      this.item,
      ctx.onDidChangeState(() => this.render()),
      ctx.onDidChangeStatus((s) => {
        // The sidecar's own message for a store failure is a raw client error (with advice for browsers);
        // it goes to the log, and the tooltip says what it means for the user.
        if (s.health === 'error' && s.message !== this.lastError)
          ctx.log.warn(`Memory store unavailable: ${s.message}`);
        this.lastError = s.health === 'error' ? s.message : undefined;
        this.render();
      }),
      counts.onDidChange(() => this.render()),
      pause.onDidChange(() => this.render()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mnemo.capture')) this.render();
      }),
    );
    this.render();
    this.item.show();
  }

  dispose(): void {
    if (this.flashTimer) clearTimeout(this.flashTimer);
    for (const d of this.disposables) d.dispose();
  }

  /**
   * Shows a short success message in the item for a few seconds ("$(check) Confirmed 2 memories"), the
   * quiet replacement of an information toast; the full sentence goes to the item's tooltip and the log.
   */
  flash(message: string, ms = 5000, opts: { icon?: string; command?: vscode.Command } = {}): void {
    this.flashText = message;
    this.flashIcon = opts.icon;
    this.flashCommand = opts.command;
    this.ctx.log.info(message);
    if (this.flashTimer) clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => {
      this.flashText = this.flashIcon = this.flashCommand = undefined;
      this.flashTimer = undefined;
      this.render();
    }, ms);
    this.render();
  }

  /** The message being flashed, if any (tests read it). */
  get flashing(): string | undefined {
    return this.flashText;
  }

  render(): void {
    const { state, status } = this.ctx;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.isTrusted = {
      enabledCommands: [
        Command.restartSidecar,
        Command.showOutput,
        Command.openDashboard,
        Command.pauseCapture,
        Command.resumeCapture,
      ],
    };
    let icon: string;
    let health: string;
    this.item.backgroundColor = undefined;
    const capture = captureState(this.pause.paused);
    if (state === 'running') {
      const h = status?.health ?? 'ok';
      // One icon: trouble first, else what capture does (recording, paused, off).
      icon = h === 'error' ? '$(error)' : h === 'warning' ? '$(warning)' : CAPTURE_ICON[capture];
      health =
        h === 'error'
          ? 'Mnemo cannot reach its memory store (ChromaDB), so memories cannot be shown or saved; captures wait in the queue. The Mnemo view says what to check; details are in the output.'
          : (status?.message ?? 'Mnemo is running.');
      if (h === 'error') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      else if (h === 'warning')
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    } else if (state === 'starting') {
      icon = '$(loading~spin)';
      health = `Mnemo's memory service is starting (${this.ctx.reason}).`;
    } else {
      icon = '$(error)';
      health = `Mnemo's memory service is not running (${this.ctx.reason}).`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    }
    const counts = state === 'running' ? this.counts.current : undefined;
    const parts = [`${icon} Mnemo`];
    if (counts) parts.push(`${counts.memories}`);
    if (counts?.pending) parts.push(`· ${counts.pending} to review`);
    if (state === 'failed' || state === 'stopped') parts.push('stopped');
    else if (capture === 'paused') parts.push('· paused');
    this.item.text = this.flashText ? `${this.flashIcon ?? '$(check)'} ${this.flashText}` : parts.join(' ');
    this.item.command = (this.flashText && this.flashCommand) || this.openView;

    const scope = counts ? describeScope(counts, projectLabel) : [];
    if (this.flashText) tip.appendMarkdown(`${escape(this.flashText)}\n\n---\n\n`);
    tip.appendMarkdown(`**Mnemo** — ${escape(health)}\n\n`);
    if (scope.length) tip.appendMarkdown(scope.map(escape).join('  \n'));
    if (status?.queued) tip.appendMarkdown(`${scope.length ? '  \n' : ''}${status.queued} captures queued`);
    tip.appendMarkdown(`\n\n${escape(CAPTURE_SENTENCE[capture])}`);
    if (capture === 'paused') tip.appendMarkdown(` [Resume](command:${Command.resumeCapture})`);
    else if (capture === 'on') tip.appendMarkdown(` [Pause](command:${Command.pauseCapture})`);
    tip.appendMarkdown(
      `\n\n[Dashboard](command:${Command.openDashboard}) · [Output](command:${Command.showOutput})`,
    );
    if (state !== 'running' || status?.health === 'error')
      tip.appendMarkdown(` · [Restart Sidecar](command:${Command.restartSidecar})`);
    this.item.tooltip = tip;
    // "N memories." and "N pending review." first (screen readers, and the UI tests' readiness check), then the scope.
    const numbers = counts
      ? ` ${counts.memories} ${counts.memories === 1 ? 'memory' : 'memories'}.${counts.pending ? ` ${counts.pending} pending review.` : ''} Counted: ${scope.join('; ')}.`
      : '';
    this.item.accessibilityInformation = {
      label: `Mnemo: ${this.flashText ? `${this.flashText}. ` : ''}${health}${numbers} ${CAPTURE_SENTENCE[capture]}`,
    };
  }
}

type CaptureState = 'on' | 'paused' | 'off';

/** Whether Mnemo is learning from the terminal and chats right now. */
function captureState(paused: boolean): CaptureState {
  if (!config.capture.terminal.enabled() && !config.capture.chat.enabled()) return 'off';
  return paused ? 'paused' : 'on';
}

/** The status item's one icon while all is well: capture recording, paused, or off. */
const CAPTURE_ICON: Record<CaptureState, string> = {
  on: '$(record)',
  paused: '$(debug-pause)',
  off: '$(database)',
};

const CAPTURE_SENTENCE: Record<CaptureState, string> = {
  on: 'Capturing: learning from the terminal (with shell integration) and @mnemo chats.',
  paused: 'Capture is paused: nothing from the terminal or @mnemo chats is learned.',
  off: 'Capture is off in the settings (mnemo.capture.terminal.enabled, mnemo.capture.chat.enabled).',
};

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
