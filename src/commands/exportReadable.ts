/**
 * "Mnemo: Export Memories as Text…" (`mnemo.exportReadable`): every memory (not the tombstones) as JSON
 * Lines or Markdown, a plain file a person or another tool can read, next to the encrypted backup. The
 * texts were redacted when stored; the user is told the file is not encrypted. Written with mode 0600.
 */
import { Command } from '../commandIds';
import { writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { renderReadable, type ReadableFormat } from '../../sidecar/shared/readableExport';
import { STATUSES } from '../../sidecar/model';
import { ListRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';

export function register(ctx: Ctx): void {
  ctx.registerCommand(Command.exportReadable, async () => {
    const pick = await vscode.window.showQuickPick(
      [
        { label: 'Markdown', description: 'for people', format: 'markdown' as ReadableFormat, ext: 'md' },
        {
          label: 'JSON Lines',
          description: 'one memory per line, for tools',
          format: 'jsonl' as ReadableFormat,
          ext: 'jsonl',
        },
      ],
      { placeHolder: 'Export memories as plain text (redacted, NOT encrypted)' },
    );
    if (!pick) return;
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(
        vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(process.cwd()),
        `mnemo-memories.${pick.ext}`,
      ),
      filters: { [pick.label]: [pick.ext] },
      saveLabel: 'Export (not encrypted)',
    });
    if (!target) return;
    const { items } = await ctx.request(ListRequest, {
      status: STATUSES.filter((s) => s !== 'wrong'),
      limit: 10_000,
    });
    writeFileSync(
      target.fsPath,
      renderReadable(items, pick.format, { at: new Date().toISOString(), by: currentUser() }),
      { mode: 0o600 },
    );
    const c = await vscode.window.showWarningMessage(
      `Exported ${items.length} memories to ${target.fsPath}. Secrets were redacted when stored, but this file is NOT encrypted; use Back Up Memories for an encrypted copy.`,
      'Open',
    );
    if (c === 'Open') await vscode.window.showTextDocument(target);
  });
}
