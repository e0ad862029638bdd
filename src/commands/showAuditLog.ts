/** `mnemo.showAuditLog`: a read-only virtual document of the audit log (a memory, a project, or all). */
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { workspaceProjects } from '../projects';
import { auditUri } from '../views/documents';
import { Command } from '../commandIds';

export function register(ctx: Ctx): void {
  ctx.registerCommand(Command.showAuditLog, async (arg?: unknown) => {
    let scope: { projectId?: string; memoryId?: string } | undefined;
    const node = arg as { kind?: string; memory?: { id: string }; projectId?: string } | undefined;
    if (node?.memory?.id) scope = { memoryId: node.memory.id };
    else if (node?.kind === 'project' && node.projectId) scope = { projectId: node.projectId };
    else if (typeof arg === 'string') scope = arg.startsWith('mem_') ? { memoryId: arg } : { projectId: arg };
    else {
      const choice = await vscode.window.showQuickPick(
        [
          ...workspaceProjects().map((p) => ({
            label: p.label,
            description: p.projectId,
            scope: { projectId: p.projectId },
          })),
          { label: 'All projects', description: 'everything this store recorded', scope: {} },
        ],
        { title: 'Mnemo: Show Audit Log', placeHolder: 'Whose audit log?' },
      );
      if (!choice) return undefined;
      scope = choice.scope;
    }
    await ctx.ready();
    const uri = auditUri(scope);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
    return doc;
  });
}
