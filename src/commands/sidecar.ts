/**
 * Commands about the service and the views: `mnemo.showOutput`, `mnemo.restartSidecar`,
 * `mnemo.openDashboard`, `mnemo.clearFilter`, `mnemo.refreshViews`, `mnemo.loadMore`, `mnemo.reviewPending`.
 */
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { SidecarDownError } from '../errors';
import type { MoreNode, SourceNode } from '../views/memoryTree';

export function register(ctx: Ctx): void {
  ctx.registerCommand('mnemo.showOutput', () => ctx.log.show(true));

  ctx.registerCommand('mnemo.restartSidecar', async () => {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Mnemo: restarting the memory service' }, () => ctx.restart());
    if (!ctx.isRunning) throw new SidecarDownError(ctx.reason);
    void vscode.window.setStatusBarMessage('Mnemo: memory service restarted.', 4000);
  });

  ctx.registerCommand('mnemo.openDashboard', () => ctx.views.dashboard.open());

  ctx.registerCommand('mnemo.clearFilter', () => ctx.views.setFilter(undefined));

  ctx.registerCommand('mnemo.refreshViews', () => ctx.views.refreshAll());

  ctx.registerCommand('mnemo.loadMore', (node?: MoreNode | SourceNode) => {
    if (node && (node.kind === 'more' || node.kind === 'source')) return ctx.views.memories.loadMore(node);
    return undefined;
  });

  ctx.registerCommand('mnemo.reviewPending', async () => {
    await vscode.commands.executeCommand('mnemo.views.review.focus');
    ctx.views.review.refresh();
  });
}
