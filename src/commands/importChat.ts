/**
 * `mnemo.importChat`: import chat transcripts (VS Code "Export Chat…" JSON, or OpenAI-style
 * `[{role, content}]`) as sessions with source_type "import"; they go through the same pipeline.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CaptureSessionRequest } from '../../sidecar/protocol';
import { parseChatFile } from '../capture/chatImport';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { errorDetail, UserError } from '../errors';
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
    let bytes: Uint8Array;
    try {
      bytes = await vscode.workspace.fs.readFile(uri);
    } catch (err) {
      ctx.log.warn(`Import ${uri.toString()}: ${errorDetail(err)}`);
      summary.skipped.push(`${name}: could not be read`);
      continue;
    }
    // Decoded and parsed in a worker thread: a large export would otherwise block the extension host.
    const file = await parseChatFile(bytes);
    if (!file.ok) {
      if (file.kind === 'json') ctx.log.warn(`Import ${uri.toString()}: ${file.message}`);
      summary.skipped.push(`${name}: ${file.kind === 'json' ? 'not valid JSON' : file.message}`);
      continue;
    }
    summary.files++;
    let i = -1;
    for await (const s of file.read()) {
      i++;
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
          `${s.format === 'vscode-chat' ? 'vscode-chat-export' : 'chat-export'}:${name}${file.sessions > 1 ? `#${i + 1}` : ''}`,
        ],
        added_by: currentUser(),
        session_id: s.session_id ?? `import:${name}:${i}`,
      });
      summary.messages += s.messages.length;
      summary.redactions += result.redactions;
      progress?.report({
        message: `${name}: ${summary.messages} messages queued`,
        increment: (s.messages.length / Math.max(1, file.messages) / uris.length) * 100,
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
