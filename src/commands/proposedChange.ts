/**
 * Shows a file change Mnemo proposes (agent config, instruction-file pointer, promoted memories) as a
 * diff editor and writes it only after the user accepts; the previous file is kept as a backup in Mnemo's
 * backup folder (sidecar/mcp/fileChange.ts applyChange). Used by Connect an Agent, Promote to Repository.
 */
import * as vscode from 'vscode';
import { applyChange, backupFolder, type FileChange } from '../../sidecar/mcp/fileChange';
import type { Ctx } from '../ctx';

const SCHEME = 'mnemo-proposed';
const contents = new Map<string, string>();
let registered = false;

function proposedUri(file: string, side: 'before' | 'after'): vscode.Uri {
  const uri = vscode.Uri.from({ scheme: SCHEME, path: file, query: `${side}-${Date.now()}` });
  return uri;
}

function ensureProvider(ctx: Ctx): void {
  if (registered) return;
  registered = true;
  ctx.pushExtension(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      provideTextDocumentContent: (uri) => contents.get(uri.toString()) ?? '',
    }),
  );
}

/** Shows each change as a diff; resolves true when the user chose to write them (and they were written). */
export async function proposeChanges(ctx: Ctx, changes: FileChange[], what: string): Promise<boolean> {
  const pending = changes.filter((c) => c.changed);
  if (pending.length === 0) {
    void vscode.window.showInformationMessage(`${what}: already up to date.`);
    return false;
  }
  ensureProvider(ctx);
  for (const c of pending) {
    const left = proposedUri(c.file, 'before');
    const right = proposedUri(c.file, 'after');
    contents.set(left.toString(), c.before ?? '');
    contents.set(right.toString(), c.after ?? '');
    await vscode.commands.executeCommand(
      'vscode.diff',
      left,
      right,
      `${vscode.workspace.asRelativePath(c.file)} (proposed by Mnemo)`,
      { preview: false },
    );
  }
  const choice = await vscode.window.showInformationMessage(
    `${what}: write ${pending.length === 1 ? vscode.workspace.asRelativePath(pending[0]!.file) : `${pending.length} files`}?`,
    {
      modal: true,
      detail: `The diff is open. The previous file is kept in ${backupFolder()}.\n${pending
        .flatMap((c) => [c.file, ...(c.notes ?? []).map((n) => `  ${n}`)])
        .join('\n')}`,
    },
    'Write',
  );
  if (choice !== 'Write') return false;
  for (const c of pending) applyChange(c);
  ctx.log.info(`${what}: wrote ${pending.map((c) => c.file).join(', ')}`);
  return true;
}
