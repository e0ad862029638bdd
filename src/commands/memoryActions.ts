/**
 * Context-menu actions on a memory: `mnemo.copyMemory`, `mnemo.promoteMemory`, `mnemo.deleteMemory`,
 * and the inline `mnemo.openSource` (source_ref `file:line` -> editor).
 */
import * as vscode from 'vscode';
import { GLOBAL_PROJECT } from '../../sidecar/model';
import { DeleteRequest, PromoteRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { UserError } from '../errors';
import { shortText } from '../views/present';
import { isMemoryRow, keyPressOf, resolveMemories } from './pick';
import { resolveFileRef } from '../shared/fileRef';
import { parseFileRef } from '../shared/sourceRef';
import { BuiltinCommand, Command, ViewId } from '../commandIds';

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.showMemory, async (...args: unknown[]) => {
    const preserveFocus = (args[2] as { preserveFocus?: boolean } | undefined)?.preserveFocus === true;
    const key = keyPressOf(args[0]);
    if (key) {
      // Enter does what it does in any tree: select the outlined row and run its action (a memory row of
      // the Memories view opens its details, a group expands, "Load more…" loads). A Review Queue row has
      // no action of its own: its details open here.
      await vscode.commands.executeCommand(BuiltinCommand.listSelect);
      if (key.view !== ViewId.review || !isMemoryRow(key.row)) return undefined;
    }
    const [memory] =
      (await resolveMemories(ctx, views, args, {
        title: 'Mnemo: Show Memory Details',
        statuses: ['active', 'pending', 'confirmed', 'wrong', 'archived'],
      })) ?? [];
    if (!memory) return undefined;
    await views.details.show(memory, preserveFocus || key !== undefined);
    return memory;
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
    const canMarkWrong = memories.some((m) => m.status !== 'wrong');
    // Delete first: the modal's default button (Enter) does what was asked, never something else.
    const ok = await vscode.window.showWarningMessage(
      `Delete ${label} for good?`,
      {
        modal: true,
        detail:
          'The audit log keeps a record. Deleted, it may be learned again from a later session; "Mark as Wrong" keeps it as a tombstone that stops that.',
      },
      'Delete',
      ...(canMarkWrong ? ['Mark as Wrong'] : []),
    );
    if (ok === 'Mark as Wrong')
      return vscode.commands.executeCommand(Command.markWrong, memories[0], memories);
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
      // Learned from a conversation, a terminal or an import: the details show that session's turns.
      await views.details.show(memory);
      views.statusBar.flash('No file to open for this memory; its details show where it came from');
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
