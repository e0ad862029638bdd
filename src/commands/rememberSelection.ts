/** `mnemo.rememberSelection`: remember the editor selection (or the current line) with its file:line. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RememberRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import { UserError } from '../errors';
import { projectIdForUri } from '../projects';
import { CATEGORY_LABEL } from '../views/present';
import type { RememberedWords } from '../shared/memoryText';
import { Command } from '../commandIds';

/** What the message after Remember Selection says it did. */
const REMEMBERED: RememberedWords = {
  stored: 'Remembered',
  refreshed: 'Already known; refreshed',
  pending: 'Remembered for review',
};

/** `src/app.ts:12` relative to the workspace folder, or the absolute path outside the workspace. */
export function sourceRefFor(uri: vscode.Uri, line: number): string {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  const file =
    folder && uri.scheme === 'file'
      ? path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/')
      : uri.scheme === 'file'
        ? uri.fsPath
        : uri.toString();
  return `${file}:${line + 1}`;
}

export function register(ctx: Ctx): void {
  ctx.registerCommand(Command.rememberSelection, async (uriArg?: unknown) => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) throw new UserError('Open a file and select the text to remember first.');
    if (uriArg instanceof vscode.Uri && uriArg.toString() !== editor.document.uri.toString()) {
      throw new UserError('Select the text to remember in the active editor first.');
    }
    const sel = editor.selection;
    const range = sel.isEmpty ? editor.document.lineAt(sel.active.line).range : sel;
    const text = editor.document.getText(range).trim();
    if (!text) throw new UserError('The selection is empty; select the text to remember.');
    const source_ref = [sourceRefFor(editor.document.uri, range.start.line)];
    const decision = await ctx.request(RememberRequest, {
      text,
      project_id: projectIdForUri(editor.document.uri),
      source_type: 'manual',
      source_ref,
      added_by: currentUser(),
    });
    if (decision.outcome === 'dropped') {
      void vscode.window.showWarningMessage(`Mnemo did not keep it: ${decision.reason}.`);
      return decision;
    }
    const what = REMEMBERED[decision.outcome];
    const category = decision.category ? ` as ${CATEGORY_LABEL[decision.category]}` : '';
    void vscode.window
      .showInformationMessage(`${what}${category} (${source_ref[0]}).`, 'Edit', 'Show')
      .then((choice) => {
        if (!decision.id) return;
        if (choice === 'Edit') void vscode.commands.executeCommand(Command.editMemory, decision.id);
        else if (choice === 'Show') void vscode.commands.executeCommand(Command.revealMemory, decision.id);
      });
    return decision;
  });
}
