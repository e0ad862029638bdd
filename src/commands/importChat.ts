/**
 * `mnemo.importChat`: import chat transcripts (VS Code "Export Chat…" JSON, or OpenAI-style
 * `[{role, content}]`) as sessions with source_type "import"; they go through the same pipeline.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CaptureSessionRequest } from '../../sidecar/protocol';
import { ChatParseError, parseChatJson } from '../capture/chatExport';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { UserError } from '../errors';
import { pickProject } from './pick';
import { Command } from '../commandIds';

export interface ImportSummary {
  files: number;
  sessions: number;
  messages: number;
  redactions: number;
  skipped: string[];
  /** The user cancelled; what was queued before stays queued. */
  cancelled?: boolean;
}

export async function importChatFiles(
  ctx: Ctx,
  uris: vscode.Uri[],
  projectId: string,
  progress?: vscode.Progress<{ message?: string; increment?: number }>,
  token?: vscode.CancellationToken,
): Promise<ImportSummary> {
  const summary: ImportSummary = { files: 0, sessions: 0, messages: 0, redactions: 0, skipped: [] };
  for (const uri of uris) {
    const name = path.basename(uri.fsPath || uri.path);
    let doc: unknown;
    try {
      doc = JSON.parse(new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri)));
    } catch (err) {
      ctx.log.warn(`Import ${uri.toString()}: ${err instanceof Error ? err.message : String(err)}`);
      summary.skipped.push(`${name}: not valid JSON`);
      continue;
    }
    let sessions;
    try {
      sessions = parseChatJson(doc);
    } catch (err) {
      if (!(err instanceof ChatParseError)) throw err;
      summary.skipped.push(`${name}: ${err.message}`);
      continue;
    }
    summary.files++;
    const total = sessions.reduce((n, s) => n + s.messages.length, 0);
    for (const [i, s] of sessions.entries()) {
      if (s.messages.length === 0) continue;
      if (token?.isCancellationRequested) {
        summary.cancelled = true;
        return summary;
      }
      // Each session whole: the sidecar reads every message of it (and an LLM gets it window by window),
      // so nothing is lost at a window's edge and a short last window is never skipped as "too short".
      const result = await ctx.request(CaptureSessionRequest, {
        project_id: projectId,
        source_type: 'import',
        messages: s.messages,
        source_ref: [
          `${s.format === 'vscode-chat' ? 'vscode-chat-export' : 'chat-export'}:${name}${sessions.length > 1 ? `#${i + 1}` : ''}`,
        ],
        added_by: currentUser(),
        session_id: s.session_id ?? `import:${name}:${i}`,
      });
      summary.messages += s.messages.length;
      summary.redactions += result.redactions;
      progress?.report({
        message: `${name}: ${summary.messages} messages queued`,
        increment: (s.messages.length / Math.max(1, total) / uris.length) * 100,
      });
      summary.sessions++;
    }
  }
  return summary;
}

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.importChat, async (arg?: unknown) => {
    const uris =
      arg instanceof vscode.Uri
        ? [arg]
        : Array.isArray(arg) && arg.every((a) => a instanceof vscode.Uri)
          ? (arg as vscode.Uri[])
          : await vscode.window.showOpenDialog({
              title: 'Mnemo: Import Chat',
              openLabel: 'Import',
              canSelectMany: true,
              filters: { 'Chat transcripts (JSON)': ['json'] },
            });
    if (!uris?.length) return undefined;
    const projectId = await pickProject('Mnemo: Import Chat — which project do these chats belong to?');
    if (!projectId) return undefined;
    const summary = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Mnemo: importing ${uris.length} file(s)…`,
        cancellable: true,
      },
      (progress, token) => importChatFiles(ctx, uris, projectId, progress, token),
    );
    if (summary.cancelled) {
      views.statusBar.flash(
        `Import cancelled after ${summary.messages} messages; what was queued is kept and learned from`,
      );
      return summary;
    }
    if (summary.sessions === 0) {
      throw new UserError(
        `Nothing imported${summary.skipped.length ? `: ${summary.skipped.join('; ')}` : ': the files hold no messages'}.`,
      );
    }
    const skipped = summary.skipped.length
      ? ` Skipped ${summary.skipped.length}: ${summary.skipped.join('; ')}.`
      : '';
    const redacted = summary.redactions
      ? ` ${summary.redactions} secrets or personal details were redacted.`
      : '';
    views.statusBar.flash(
      `Imported ${summary.sessions} chat session(s), all ${summary.messages} messages, each whole; learning in the background.${redacted}${skipped}`,
    );
    return summary;
  });
}
