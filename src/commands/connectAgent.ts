/**
 * "Mnemo: Connect an Agent…" (`mnemo.connectAgent`) and "Mnemo: Undo Connect an Agent…"
 * (`mnemo.disconnectAgent`): Mnemo's MCP server in Claude Code, Codex, Cursor, Cline, Windsurf or the
 * Copilot CLI, at the location each one documents (sidecar/shared/connect.ts), shown as a diff first, plus
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
  SCOPE_LABEL,
  configTarget,
  instructionFileFor,
  planConnect,
  planDisconnect,
  planPointer,
  scopesOf,
  type AgentId,
  type ConnectScope,
  type LocationContext,
} from '../../sidecar/shared/connect';
import { applyUndo, backupFolder, planUndo, removeSection } from '../../sidecar/shared/fileChange';
import { buildInitializationOptions } from '../client';
import type { Ctx } from '../ctx';
import { UserError } from '../errors';
import { mcpLaunchFor } from '../mcpLaunch';
import { proposeChanges } from './proposedChange';
import { isHookAgent } from '../../sidecar/shared/captureHooks';

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
    AGENTS.map((a) => ({ label: AGENT_LABEL[a], agent: a })),
    { placeHolder },
  );
  if (!pick) throw new vscode.CancellationError();
  return pick.agent;
}

/**
 * Where the agent's entry goes: a per-user scope first (this machine's paths belong to this user); the
 * committed file only when picked, and then with the portable `mnemo mcp` alone.
 */
async function pickScope(agent: AgentId, placeHolder: string): Promise<ConnectScope> {
  const scopes = scopesOf(agent);
  if (scopes.length === 1) return scopes[0]!;
  const pick = await vscode.window.showQuickPick(
    scopes.map((scope) => ({
      label: SCOPE_LABEL[scope],
      description: scope,
      detail:
        scope === 'project'
          ? 'A file in the repository: only `mnemo mcp`, which each teammate needs on their PATH.'
          : 'Your own configuration: this editor’s Mnemo and data folder.',
      scope,
    })),
    { placeHolder },
  );
  if (!pick) throw new vscode.CancellationError();
  return pick.scope;
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
    const target = configTarget(
      agent,
      location(ctx, folder),
      await pickScope(agent, `Connect ${AGENT_LABEL[agent]} for whom?`),
    );
    const launch = mcpLaunchFor({
      execPath: process.execPath,
      extensionPath: ctx.extension.extensionPath,
      options: buildInitializationOptions(ctx.extension.globalStorageUri.fsPath, {}),
    });
    const changes = [planConnect(target, launch)];
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
      // Agents with session hooks: offer to learn their sessions too (sidecar/shared/captureHooks.ts).
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
    const pointer = path.join(folder.uri.fsPath, instructionFileFor(agent));
    const changes = [
      ...scopesOf(agent).map((scope) => planDisconnect(configTarget(agent, location(ctx, folder), scope))),
      planUndo(pointer, (t) => removeSection(t, POINTER_BEGIN, POINTER_END, pointer)),
    ].filter((c) => c.changed);
    if (changes.length === 0) {
      void vscode.window.showInformationMessage(`${AGENT_LABEL[agent]} has no Mnemo configuration to undo.`);
      return;
    }
    const choice = await vscode.window.showWarningMessage(
      `Undo Connect ${AGENT_LABEL[agent]}?`,
      {
        modal: true,
        detail: `${changes
          .map(
            (c) =>
              `${c.file}: ${c.after === undefined ? 'remove (nothing else is in it)' : 'take Mnemo’s entry out'}`,
          )
          .join('\n')}\nThe files as they are now are kept in ${backupFolder()}.`,
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
