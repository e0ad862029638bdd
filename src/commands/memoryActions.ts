/**
 * Context-menu actions on a memory: `mnemo.copyMemory`, `mnemo.promoteMemory`, `mnemo.deleteMemory`,
 * and the inline `mnemo.openSource` (source_ref `file:line` -> editor).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { GLOBAL_PROJECT, type Memory } from '../../sidecar/model';
import { DeleteRequest, PromoteRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { UserError } from '../errors';
import { workspaceProjects } from '../projects';
import { memoryUri } from '../views/documents';
import { shortText } from '../views/present';
import { resolveMemories } from './pick';
import { parseFileRef } from './sourceRef';
import { Command } from '../commandIds';

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** Resolve a file reference against the memory's project folders, then every workspace folder. */
export async function resolveFileRef(memory: Memory, file: string): Promise<vscode.Uri | undefined> {
  if (path.isAbsolute(file)) return (await exists(vscode.Uri.file(file))) ? vscode.Uri.file(file) : undefined;
  const projects = workspaceProjects(false);
  const own = projects.filter((p) => p.projectId === memory.project_id).flatMap((p) => p.folders);
  const others = projects.filter((p) => p.projectId !== memory.project_id).flatMap((p) => p.folders);
  for (const folder of [...own, ...others]) {
    const uri = vscode.Uri.joinPath(folder.uri, file);
    if (await exists(uri)) return uri;
  }
  return undefined;
}

/** Opens a memory's details (text, fields in words, sources explained) in a read-only editor. */
async function showDetails(memory: Memory): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(memoryUri(memory));
  await vscode.window.showTextDocument(doc, { preview: true });
  return doc;
}

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.showMemory, async (...args: unknown[]) => {
    const [memory] =
      (await resolveMemories(ctx, views, args, {
        title: 'Mnemo: Show Memory Details',
        statuses: ['active', 'pending', 'confirmed', 'wrong', 'archived'],
      })) ?? [];
    if (!memory) return undefined;
    return showDetails(memory);
  });

  ctx.registerCommand(Command.copyMemory, async (...args: unknown[]) => {
    const memories = await resolveMemories(ctx, views, args, { title: 'Mnemo: Copy Memory', many: true });
    if (!memories?.length) return;
    await vscode.env.clipboard.writeText(memories.map((m) => m.text).join('\n'));
    views.statusBar.flash(`Copied ${memories.length === 1 ? 'the memory' : `${memories.length} memories`}`);
  });

  ctx.registerCommand(Command.promoteMemory, async (...args: unknown[]) => {
    const memories = await resolveMemories(ctx, views, args, {
      title: 'Mnemo: Promote to Global',
      statuses: ['active', 'confirmed', 'pending'],
      many: true,
    });
    if (!memories?.length) return undefined;
    const already = memories.filter((m) => m.project_id === GLOBAL_PROJECT);
    const todo = memories.filter((m) => m.project_id !== GLOBAL_PROJECT);
    if (todo.length === 0) throw new UserError('Already global: it is recalled in every project.');
    const promoted = await Promise.all(
      todo.map((m) => ctx.request(PromoteRequest, { id: m.id, by: currentUser() })),
    );
    views.statusBar.flash(
      `Promoted ${promoted.length === 1 ? `“${shortText(promoted[0].text, 40)}”` : `${promoted.length} memories`} to Global${already.length ? ` (${already.length} already global)` : ''}`,
    );
    return promoted;
  });

  ctx.registerCommand(Command.deleteMemory, async (...args: unknown[]) => {
    const memories = await resolveMemories(ctx, views, args, {
      title: 'Mnemo: Delete Memory',
      statuses: ['active', 'pending', 'confirmed', 'wrong', 'archived'],
      many: true,
    });
    if (!memories?.length) return undefined;
    const label =
      memories.length === 1 ? `“${shortText(memories[0].text, 80)}”` : `${memories.length} memories`;
    const ok = await vscode.window.showWarningMessage(
      `Delete ${label} for good?`,
      {
        modal: true,
        detail: 'The audit log keeps a record. To stop it being learned again, use "Mark as Wrong" instead.',
      },
      'Delete',
    );
    if (ok !== 'Delete') return undefined;
    const { deleted } = await ctx.request(DeleteRequest, {
      ids: memories.map((m) => m.id),
      by: currentUser(),
    });
    views.statusBar.flash(`Deleted ${deleted} ${deleted === 1 ? 'memory' : 'memories'}`);
    return deleted;
  });

  ctx.registerCommand(Command.openSource, async (...args: unknown[]) => {
    const [memory] = (await resolveMemories(ctx, views, args, { title: 'Mnemo: Open Source' })) ?? [];
    if (!memory) return undefined;
    const refs = memory.source_ref.map((r) => ({ ref: r, file: parseFileRef(r) })).filter((r) => r.file);
    if (refs.length === 0) {
      // Learned from a conversation, a terminal or an import: no file to open; the details say where it came from.
      await showDetails(memory);
      views.statusBar.flash('No file to open for this memory; its sources are listed in its details');
      return undefined;
    }
    const chosen =
      refs.length === 1
        ? refs[0]
        : await vscode.window.showQuickPick(
            refs.map((r) => ({ ...r, label: r.ref })),
            { title: 'Mnemo: Open Source', placeHolder: 'Which source?' },
          );
    if (!chosen?.file) return undefined;
    const uri = await resolveFileRef(memory, chosen.file.file);
    if (!uri) throw new UserError(`Cannot find ${chosen.file.file} in this workspace.`);
    const editor = await vscode.window.showTextDocument(uri, { preview: true });
    const line = Math.min(chosen.file.line, editor.document.lineCount - 1);
    const pos = new vscode.Position(line, 0);
    editor.selection = new vscode.Selection(pos, pos);
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return uri;
  });
}
