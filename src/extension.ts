/**
 * activate/deactivate only. Activation does no heavy work: it builds the context, the views and the
 * commands, and starts the sidecar in the background.
 */
import type * as vscode from 'vscode';
import { createApi, type MnemoApi } from './api';
import { AgentSessions } from './capture/agents';
import { ChatCapture } from './capture/chat';
import { CapturePause } from './shared/pause';
import { TerminalCapture } from './capture/terminal';
import { LanguageModelTools } from './capture/tools';
import { registerCommands } from './commands';
import { register as registerAgentSources } from './commands/agentSources';
import { register as registerExplainCapture } from './commands/explainCapture';
import { Ctx } from './ctx';
import { McpServerProvider } from './mcpServerProvider';
import { createViews } from './views';

let ctx: Ctx | undefined;

export function activate(context: vscode.ExtensionContext): MnemoApi {
  const t0 = performance.now();
  const c = new Ctx(context);
  ctx = c;
  context.subscriptions.push(c);
  const pause = new CapturePause(context.workspaceState);
  const agents = new AgentSessions(c, pause);
  c.pushExtension(pause, agents);
  const views = createViews(c, pause, agents);
  registerCommands(c, views);
  registerAgentSources(c, views, agents);
  const terminal = new TerminalCapture(c, pause);
  registerExplainCapture(c, views, terminal);
  const chat = new ChatCapture(c, pause);
  const tools = new LanguageModelTools(c);
  const mcp = new McpServerProvider(c);
  c.pushExtension(terminal, chat, tools, mcp);
  void c.start();
  const api = createApi(c, views, { terminal, chat, tools, mcp, agents });
  api.activationMs = performance.now() - t0;
  return api;
}

export function deactivate(): Promise<void> | undefined {
  const c = ctx;
  ctx = undefined;
  return c?.stop(3000);
}
