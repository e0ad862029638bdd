/**
 * Agents' sessions and the review queue at scale:
 * - `mnemo.learnFromAgents` (Learn from Agent Sessions…): pick the agents whose sessions of this
 *   workspace Mnemo may read; the newly chosen are captured at once (capture/agents.ts).
 * - `mnemo.enableAgentSource` / `mnemo.disableAgentSource` / `mnemo.captureAgentSessions`: the Agent
 *   Sessions view's actions.
 * - `mnemo.installCaptureHooks` / `mnemo.removeCaptureHooks`: an agent's hook that runs Mnemo's capture at
 *   the end of its sessions, also while the editor is closed (sidecar/shared/captureHooks.ts), a diff first.
 * - `mnemo.groupReview`, `mnemo.confirmReviewGroup`, `mnemo.rejectReviewGroup`: the review queue ranked or
 *   grouped; a whole group decided as one step, with Undo.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  HOOK_AGENTS,
  hookSentence,
  isHookAgent,
  planHooks,
  planHooksUndo,
  type HookAgent,
} from '../../sidecar/shared/captureHooks';
import { applyUndo } from '../../sidecar/shared/fileChange';
import { ReviewApplyRequest, ReviewUndoRequest } from '../../sidecar/protocol';
import {
  CAPTURE_SOURCE_LABEL,
  isCaptureSource,
  type CaptureSourceId,
} from '../../sidecar/shared/agentSources';
import { enabledSources } from '../shared/agentConsent';
import { buildInitializationOptions, currentUser } from '../client';
import { Command } from '../commandIds';
import type { AgentSessions } from '../capture/agents';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { hookLaunchFor } from '../mcpLaunch';
import type { Views } from '../views';
import { GROUPING_LABEL, REVIEW_GROUPINGS } from '../views/reviewGroups';
import type { ReviewNode } from '../views/reviewTree';
import type { SourceNode } from '../views/sourcesTree';
import { proposeChanges } from './proposedChange';

/** The agent of a Sources view row, or of a command argument. */
function sourceOf(arg: unknown): CaptureSourceId | undefined {
  const id = typeof arg === 'string' ? arg : (arg as SourceNode | undefined)?.source?.id;
  return isCaptureSource(id) ? id : undefined;
}

async function pickHookAgent(arg: unknown, placeHolder: string): Promise<HookAgent | undefined> {
  if (isHookAgent(arg)) return arg;
  const pick = await vscode.window.showQuickPick(
    HOOK_AGENTS.map((a) => ({ label: CAPTURE_SOURCE_LABEL[a], description: hookSentence(a), agent: a })),
    { placeHolder },
  );
  return pick?.agent;
}

function hookContext() {
  return { home: process.env.HOME || os.homedir(), env: process.env };
}

/** Registered beside the other commands, with capture's agent sessions they act on. */
export function register(ctx: Ctx, views: Views, agents: AgentSessions): void {
  ctx.registerCommand(Command.learnFromAgents, () => agents.checkConsent(true));

  ctx.registerCommand(Command.enableAgentSource, async (arg?: unknown) => {
    const id = sourceOf(arg);
    if (!id) return;
    await agents.setAnswers({ [id]: true });
    await agents.capture([id]);
  });

  ctx.registerCommand(Command.disableAgentSource, async (arg?: unknown) => {
    const id = sourceOf(arg);
    if (!id) return;
    await agents.setAnswers({ [id]: false });
    views.statusBar.flash(`${CAPTURE_SOURCE_LABEL[id]}: no longer read; what was learned stays`);
  });

  ctx.registerCommand(Command.captureAgentSessions, async (arg?: unknown) => {
    const one = sourceOf(arg);
    const ids = one ? [one] : enabledSources(config.capture.sources());
    if (ids.length === 0) return agents.checkConsent(true);
    await agents.capture(ids);
  });

  ctx.registerCommand(Command.installCaptureHooks, async (arg?: unknown) => {
    const agent = await pickHookAgent(
      arg,
      'Learn which agent’s sessions when they end, also while VS Code is closed?',
    );
    if (!agent) return;
    const launch = hookLaunchFor({
      execPath: process.execPath,
      extensionPath: ctx.extension.extensionPath,
      options: buildInitializationOptions(ctx.extension.globalStorageUri.fsPath, {}),
    });
    const change = planHooks(agent, launch, hookContext());
    if (await proposeChanges(ctx, [change], `Capture hook for ${CAPTURE_SOURCE_LABEL[agent]}`)) {
      await agents.setAnswers({ [agent]: true });
      void vscode.window
        .showInformationMessage(`${hookSentence(agent)} Its sessions are learned as they end.`, 'Undo')
        .then((c) => c === 'Undo' && vscode.commands.executeCommand(Command.removeCaptureHooks, agent));
    }
  });

  ctx.registerCommand(Command.removeCaptureHooks, async (arg?: unknown) => {
    const agent = await pickHookAgent(arg, 'Remove Mnemo’s capture hook of which agent?');
    if (!agent) return;
    const change = planHooksUndo(agent, hookContext());
    if (!change.changed) {
      void vscode.window.showInformationMessage(`${CAPTURE_SOURCE_LABEL[agent]} has no Mnemo capture hook.`);
      return;
    }
    const ok = await vscode.window.showWarningMessage(
      `Remove Mnemo's capture hook from ${change.file}?`,
      {
        modal: true,
        detail:
          'Only Mnemo’s entry is removed; the file as it is now is kept in Mnemo’s backup folder first.',
      },
      'Remove',
    );
    if (ok !== 'Remove') return;
    applyUndo(change);
    views.statusBar.flash(`Removed the capture hook of ${CAPTURE_SOURCE_LABEL[agent]}`);
  });

  ctx.registerCommand(Command.groupReview, async () => {
    const pick = await vscode.window.showQuickPick(
      REVIEW_GROUPINGS.map((g) => ({ label: GROUPING_LABEL[g], picked: g === views.review.grouping, g })),
      { placeHolder: 'Show the review queue…' },
    );
    if (pick) await views.review.setGrouping(pick.g);
  });

  const decideGroup = async (arg: unknown, action: 'confirm' | 'reject') => {
    const node = arg as ReviewNode | undefined;
    if (node?.kind !== 'reviewGroup') return;
    const ids = node.memories.map((m) => m.id);
    if (action === 'reject') {
      const ok = await vscode.window.showWarningMessage(
        `Reject all ${ids.length} pending memories of “${node.label}”?`,
        {
          modal: true,
          detail: 'They are marked wrong: never recalled and not learned again. You can undo it.',
        },
        'Reject All',
      );
      if (ok !== 'Reject All') return;
    }
    const r = await ctx.request(ReviewApplyRequest, { action, ids, by: currentUser() });
    const done = `${action === 'confirm' ? 'Confirmed' : 'Rejected'} ${r.changed} of ${ids.length} memories of “${node.label}”`;
    void vscode.window.showInformationMessage(done, 'Undo').then(async (c) => {
      if (c !== 'Undo') return;
      const u = await ctx.request(ReviewUndoRequest, { undo_token: r.undo_token, by: currentUser() });
      views.statusBar.flash(`Undone: ${u.restored} memories are back as they were`);
    });
  };
  ctx.registerCommand(Command.confirmReviewGroup, (arg?: unknown) => decideGroup(arg, 'confirm'));
  ctx.registerCommand(Command.rejectReviewGroup, (arg?: unknown) => decideGroup(arg, 'reject'));
}
