/**
 * Commands about the service and the views: `mnemo.showOutput`, `mnemo.restartSidecar`,
 * `mnemo.openDashboard`, `mnemo.clearFilter`, `mnemo.refreshViews`, `mnemo.loadMore`, `mnemo.reviewPending`.
 */
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { SidecarDownError } from '../errors';
import type { MoreNode, SourceNode } from '../views/memoryTree';
import { BuiltinCommand, Command } from '../commandIds';

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.showOutput, () => ctx.log.show(true));

  ctx.registerCommand(Command.restartSidecar, async () => {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'Mnemo: restarting the memory service' },
      () => ctx.restart(),
    );
    if (!ctx.isRunning) throw new SidecarDownError(ctx.reason);
    views.statusBar.flash('Memory service restarted');
  });

  ctx.registerCommand(Command.openDashboard, () => views.dashboard.open());

  ctx.registerCommand(Command.clearFilter, () => views.setFilter(undefined));

  ctx.registerCommand(Command.refreshViews, () => ctx.announceChange());

  ctx.registerCommand(Command.loadMore, (node?: MoreNode | SourceNode) => {
    if (node && (node.kind === 'more' || node.kind === 'source')) return views.memories.loadMore(node);
    return undefined;
  });

  ctx.registerCommand(Command.pauseCapture, async () => {
    await views.pause.set(true);
    views.statusBar.flash('Capture paused: nothing from the terminal or chats is learned until you resume');
  });

  ctx.registerCommand(Command.resumeCapture, async () => {
    await views.pause.set(false);
    views.statusBar.flash('Capture resumed');
  });

  ctx.registerCommand(Command.reviewPending, async () => {
    await vscode.commands.executeCommand(BuiltinCommand.focusReview);
  });
}
