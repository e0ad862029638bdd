/** The status bar item: sidecar health (from `mnemo/status`), memory count and pending count. */
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { BuiltinCommand, Command } from '../commandIds';

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx) {
    this.item = vscode.window.createStatusBarItem('mnemo.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'Mnemo';
    // The view container's built-in "show" command: opens the Mnemo view.
    this.item.command = { command: BuiltinCommand.showMnemoContainer, title: 'Open Mnemo' };
    this.disposables.push(
      this.item,
      ctx.onDidChangeState(() => this.render()),
      ctx.onDidChangeStatus(() => this.render()),
    );
    this.render();
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  render(): void {
    const { state, status } = this.ctx;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.isTrusted = { enabledCommands: [Command.restartSidecar, Command.showOutput, Command.openDashboard] };
    let icon: string;
    let health: string;
    this.item.backgroundColor = undefined;
    if (state === 'running') {
      const h = status?.health ?? 'ok';
      icon = h === 'error' ? '$(error)' : h === 'warning' ? '$(warning)' : '$(database)';
      health = status?.message ?? 'Mnemo is running.';
      if (h === 'error') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      else if (h === 'warning') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    } else if (state === 'starting') {
      icon = '$(loading~spin)';
      health = `Mnemo's memory service is starting (${this.ctx.reason}).`;
    } else {
      icon = '$(error)';
      health = `Mnemo's memory service is not running (${this.ctx.reason}).`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    }
    const parts = [`${icon} Mnemo`];
    if (state === 'running' && status?.memoryCount !== undefined) parts.push(`${status.memoryCount}`);
    if (state === 'running' && status?.pendingCount) parts.push(`$(inbox) ${status.pendingCount}`);
    if (state === 'failed' || state === 'stopped') parts.push('stopped');
    this.item.text = parts.join(' ');

    tip.appendMarkdown(`**Mnemo** — ${escape(health)}\n\n`);
    if (status?.memoryCount !== undefined) tip.appendMarkdown(`${status.memoryCount} memories`);
    if (status?.pendingCount !== undefined) tip.appendMarkdown(` · ${status.pendingCount} waiting for review`);
    if (status?.queued) tip.appendMarkdown(` · ${status.queued} captures queued`);
    tip.appendMarkdown('\n\n[Dashboard](command:mnemo.openDashboard) · [Output](command:mnemo.showOutput)');
    if (state !== 'running') tip.appendMarkdown(' · [Restart Sidecar](command:mnemo.restartSidecar)');
    this.item.tooltip = tip;
    this.item.accessibilityInformation = {
      label: `Mnemo: ${health}${status?.memoryCount !== undefined ? ` ${status.memoryCount} memories.` : ''}${status?.pendingCount ? ` ${status.pendingCount} pending review.` : ''}`,
    };
  }
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
