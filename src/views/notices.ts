/**
 * Notices (shared stores): memories this user confirmed that someone else has since marked wrong.
 * Checked when the sidecar starts; shown once as a notification, listed in a picker, then acknowledged.
 */
import * as vscode from 'vscode';
import { AckNoticesRequest, NoticesRequest, type Notice } from '../../sidecar/protocol';
import { currentUser } from '../client';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { errorDetail } from '../errors';
import { projectLabel, workspaceProjects } from '../projects';
import { formatLocalWithUtc } from '../time';
import { shortText } from './present';
import { Command } from '../commandIds';

export async function checkNotices(ctx: Ctx): Promise<Notice[]> {
  let notices: Notice[];
  try {
    const user = currentUser();
    notices = (
      await ctx.request(NoticesRequest, { user, project_ids: workspaceProjects().map((p) => p.projectId) })
    ).notices;
  } catch (err) {
    ctx.log.warn(`Checking notices failed: ${errorDetail(err)}`);
    return [];
  }
  if (notices.length === 0) return notices;
  const first = notices[0];
  const message =
    notices.length === 1
      ? `${first.by} marked as wrong a memory you confirmed: “${shortText(first.memory.text, 60)}”.`
      : `${notices.length} memories you confirmed were marked as wrong by others.`;
  void vscode.window.showWarningMessage(message, 'Show', 'Dismiss').then(async (choice) => {
    try {
      if (choice === 'Show') {
        const picked = await vscode.window.showQuickPick(
          notices.map((n) => ({
            label: shortText(n.memory.text, 100),
            description: `${projectLabel(n.memory.project_id)} · marked wrong by ${n.by}`,
            detail: formatLocalWithUtc(n.at, config.display.timeZone()),
            notice: n,
          })),
          {
            title: 'Mnemo: memories marked wrong by others',
            placeHolder: 'Choose one to see it in the tree',
          },
        );
        if (picked) void vscode.commands.executeCommand(Command.revealMemory, picked.notice.memory.id);
      }
      if (choice)
        await ctx.request(AckNoticesRequest, { ids: notices.map((n) => n.memory.id), user: currentUser() });
    } catch (err) {
      ctx.reportError(err, 'Notices');
    }
  });
  return notices;
}
