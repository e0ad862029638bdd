/**
 * `mnemo.explainCapture` (Why Was Nothing Kept From the Terminal?): the last terminal session of this window
 * that kept nothing, explained (views/captureText.ts) — opened from the status bar's quiet "nothing kept —
 * why?" or the palette. The flash itself is wired here too: a terminal session that keeps nothing says so
 * in the status bar for a while, never in a notification.
 */
import * as vscode from 'vscode';
import type { NothingKept, TerminalCapture } from '../capture/terminal';
import { BuiltinCommand, Command } from '../commandIds';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { nothingKeptUri } from '../views/documents';

/** How long the status bar offers "nothing kept — why?". */
const OFFER_MS = 20_000;

export function register(ctx: Ctx, views: Views, terminal: TerminalCapture): void {
  ctx.pushExtension(
    terminal.onDidKeepNothing((n) =>
      views.statusBar.flash('Terminal session: nothing kept — why?', OFFER_MS, {
        icon: '$(info)',
        command: { command: Command.explainCapture, title: 'Why Was Nothing Kept?', arguments: [n] },
      }),
    ),
  );
  ctx.registerCommand(Command.explainCapture, async (arg?: NothingKept) => {
    const n = arg?.outcome ? arg : terminal.lastNothingKept;
    if (!n) {
      views.statusBar.flash(
        'Every terminal session captured in this window kept something, or none was captured yet',
      );
      return undefined;
    }
    const uri = nothingKeptUri(n);
    await vscode.workspace.openTextDocument(uri);
    await vscode.commands.executeCommand(BuiltinCommand.markdownPreview, uri);
    return uri;
  });
}
