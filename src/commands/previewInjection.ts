/** `mnemo.previewInjection`: what an agent would receive for a query — recalled, near misses and why, the block — rendered. */
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { injectionUri } from '../views/documents';
import { BuiltinCommand, Command } from '../commandIds';
import { cutText } from '../../sidecar/shared/text';

export function register(ctx: Ctx): void {
  ctx.registerCommand(Command.previewInjection, async (queryArg?: unknown) => {
    let query = typeof queryArg === 'string' ? queryArg : undefined;
    if (!query) {
      const editor = vscode.window.activeTextEditor;
      const selected =
        editor && !editor.selection.isEmpty ? cutText(editor.document.getText(editor.selection), 500) : '';
      query = await vscode.window.showInputBox({
        title: 'Mnemo: Preview Injection',
        prompt: 'The prompt an agent would be given; Mnemo shows what it would inject',
        value: selected,
        validateInput: (v) => (v.trim() ? undefined : 'Type a query.'),
      });
    }
    if (!query?.trim()) return undefined;
    await ctx.ready();
    const uri = injectionUri(query.trim());
    const doc = await vscode.workspace.openTextDocument(uri);
    // Rendered, not raw Markdown: the tables and the block read as a page.
    await vscode.commands.executeCommand(BuiltinCommand.markdownPreview, uri);
    return doc;
  });
}
