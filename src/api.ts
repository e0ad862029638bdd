/**
 * What activate() returns: a small API for the extension-host tests (test/editor/suite) and for
 * other extensions. Requests go through the same context as the commands.
 */
import type * as vscode from 'vscode';
import type { RequestType } from 'vscode-jsonrpc';
import type { StatusParams } from '../sidecar/protocol';
import type { AgentSessions } from './capture/agents';
import type { ChatCapture } from './capture/chat';
import type { TerminalCapture } from './capture/terminal';
import type { LanguageModelTools } from './capture/tools';
import type { Ctx, SidecarState } from './ctx';
import type { McpServerProvider } from './mcpServerProvider';
import { workspaceProjects, type WorkspaceProject } from './projects';
import type { Views } from './views';

export interface MnemoApi {
  /** Resolves when the sidecar runs (rejects with a one-sentence error after the timeout). */
  ready(timeoutMs?: number): Promise<void>;
  state(): SidecarState;
  status(): StatusParams | undefined;
  /** Any protocol request (`import { ListRequest } from 'sidecar/protocol'`). Only `.method` is used at runtime. */
  request<P, R>(type: RequestType<P, R, void>, params: P): Promise<R>;
  /** The workspace's projects (folders with their project_id) plus Global. */
  projects(): WorkspaceProject[];
  views: Views;
  /** Agents' sessions: consent, settings, captures (capture/agents.ts). */
  agents: AgentSessions;
  terminal: TerminalCapture;
  chat: ChatCapture;
  tools: LanguageModelTools;
  /** Mnemo's MCP server offered to the editor's agents (registered only where VS Code has the API, 1.101+). */
  mcp: McpServerProvider;
  /** The status bar item (text, tooltip). */
  statusBarItem(): vscode.StatusBarItem;
  /** How long activate() took, in ms (performance.now() around its body; `npm run bench` reports it). */
  activationMs: number;
}

export function createApi(
  ctx: Ctx,
  views: Views,
  parts: {
    terminal: TerminalCapture;
    chat: ChatCapture;
    tools: LanguageModelTools;
    mcp: McpServerProvider;
    agents: AgentSessions;
  },
): MnemoApi {
  return {
    ready: (timeoutMs) => ctx.ready(timeoutMs),
    state: () => ctx.state,
    status: () => ctx.status,
    request: (type, params) => ctx.request(type, params),
    projects: () => workspaceProjects(),
    views,
    agents: parts.agents,
    terminal: parts.terminal,
    chat: parts.chat,
    tools: parts.tools,
    mcp: parts.mcp,
    statusBarItem: () => views.statusBar.item,
    activationMs: 0,
  };
}
