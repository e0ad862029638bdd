/**
 * "Mnemo: Connect an Agent…" (`mnemo.connectAgent`) and "Mnemo: Undo Connect an Agent…"
 * (`mnemo.disconnectAgent`): Mnemo's MCP server in Claude Code, Codex, Cursor, Cline, Windsurf or the
 * Copilot CLI, at the location each one documents (sidecar/mcp/connect.ts), shown as a diff first, plus
 * an optional pointer in the project's instruction file telling agents to recall and remember.
 * The server runs on this extension's data folder, so every agent shares the memory the view shows.
 */
import { Command } from '../commandIds';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  AGENTS,
  AGENT_LABEL,
  POINTER_BEGIN,
  POINTER_END,
  applyUndo,
  configPath,
  instructionFileFor,
  isProjectScoped,
  planConnect,
  planPointer,
  planUndo,
  removeFromConfig,
  removeSection,
  type AgentId,
  type LocationContext,
} from '../../sidecar/mcp/connect';
import { buildInitializationOptions } from '../client';
import type { Ctx } from '../ctx';
import { UserError } from '../errors';
import { mcpLaunchFor } from '../mcpLaunch';
import { proposeChanges } from './proposedChange';
import { isHookAgent } from '../../sidecar/capture/hooks';

const CAPTURE_ITS_SESSIONS = 'Also Learn Its Sessions';

async function pickFolder(): Promise<vscode.WorkspaceFolder> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0)
    throw new UserError(
      'Open the project folder first: project-scoped agent settings and the instruction file live there.',
    );
  if (folders.length === 1) return folders[0]!;
  const f = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Which project?' });
  if (!f) throw new vscode.CancellationError();
  return f;
}

async function pickAgent(placeHolder: string): Promise<AgentId> {
  const pick = await vscode.window.showQuickPick(
    AGENTS.map((a) => ({
      label: AGENT_LABEL[a],
      description: isProjectScoped(a) ? 'project config' : 'user config',
      agent: a,
    })),
    { placeHolder },
  );
  if (!pick) throw new vscode.CancellationError();
  return pick.agent;
}

function location(ctx: Ctx, folder: vscode.WorkspaceFolder): LocationContext {
  // globalStorage/<this extension> -> the editor's User folder, where Cline keeps its settings.
  return {
    projectDir: folder.uri.fsPath,
    vscodeUserDir: path.dirname(path.dirname(ctx.extension.globalStorageUri.fsPath)),
  };
}

export function register(ctx: Ctx): void {
  ctx.registerCommand(Command.connectAgent, async (agentArg?: unknown) => {
    const agent =
      typeof agentArg === 'string' && (AGENTS as readonly string[]).includes(agentArg)
        ? (agentArg as AgentId)
        : await pickAgent('Connect which agent to Mnemo’s memory?');
    const folder = await pickFolder();
    const launch = mcpLaunchFor({
      execPath: process.execPath,
      extensionPath: ctx.extension.extensionPath,
      options: buildInitializationOptions(ctx.extension.globalStorageUri.fsPath, {}),
    });
    const changes = [planConnect(agent, launch, location(ctx, folder))];
    const file = instructionFileFor(agent);
    const pointer = await vscode.window.showQuickPick(
      [
        {
          label: `Also add a pointer to ${file}`,
          description: 'tells agents to call recall at the start of a task and remember for decisions',
          add: true,
        },
        { label: 'Only the MCP configuration', add: false },
      ],
      { placeHolder: `${AGENT_LABEL[agent]}: also point the agent at Mnemo in ${file}?` },
    );
    if (!pointer) return;
    if (pointer.add) changes.push(planPointer(agent, folder.uri.fsPath, file));
    if (await proposeChanges(ctx, changes, `Connect ${AGENT_LABEL[agent]}`)) {
      // Agents with session hooks: offer to learn their sessions too (sidecar/capture/hooks.ts).
      const hooks = isHookAgent(agent) ? [CAPTURE_ITS_SESSIONS] : [];
      void vscode.window
        .showInformationMessage(
          `${AGENT_LABEL[agent]} now starts Mnemo's MCP server; restart it to pick the change up.`,
          'Undo',
          ...hooks,
        )
        .then((c) => {
          if (c === 'Undo') void vscode.commands.executeCommand(Command.disconnectAgent, agent);
          if (c === CAPTURE_ITS_SESSIONS)
            void vscode.commands.executeCommand(Command.installCaptureHooks, agent);
        });
    }
  });

  ctx.registerCommand(Command.disconnectAgent, async (agentArg?: unknown) => {
    const agent =
      typeof agentArg === 'string' && (AGENTS as readonly string[]).includes(agentArg)
        ? (agentArg as AgentId)
        : await pickAgent('Undo the connection of which agent?');
    const folder = await pickFolder();
    const changes = [
      planUndo(configPath(agent, location(ctx, folder)), (t) => removeFromConfig(agent, t)),
      planUndo(path.join(folder.uri.fsPath, instructionFileFor(agent)), (t) =>
        removeSection(t, POINTER_BEGIN, POINTER_END),
      ),
    ].filter((c) => c.changed);
    if (changes.length === 0) {
      void vscode.window.showInformationMessage(`${AGENT_LABEL[agent]} has no Mnemo configuration to undo.`);
      return;
    }
    const choice = await vscode.window.showWarningMessage(
      `Undo Connect ${AGENT_LABEL[agent]}?`,
      {
        modal: true,
        detail: changes
          .map(
            (c) =>
              `${c.file}: ${c.restore ? 'restore the backup Mnemo kept' : c.after === undefined ? 'remove (Mnemo created it)' : 'remove Mnemo’s entry'}`,
          )
          .join('\n'),
      },
      'Undo',
    );
    if (choice !== 'Undo') return;
    changes.forEach(applyUndo);
    void vscode.window.showInformationMessage(
      `Undone: ${changes.map((c) => vscode.workspace.asRelativePath(c.file)).join(', ')}.`,
    );
  });
}
