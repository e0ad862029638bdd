/**
 * Mnemo's MCP server (official `@modelcontextprotocol/sdk`): the tools `recall`, `remember`,
 * `mark_wrong`, `report`, `search` and `get`, and the project's memories as resources, all over the public
 * methods of one {@link MnemoService} — the same core and data folder as the extension's sidecar.
 * One McpServer per client connection (stdio: one; HTTP: one per session), all sharing one service.
 * Each tool is its own module in `tools/` (the table, in `tools/list` order, in `tools/index.ts`), the
 * resources are in `resources.ts`; all work against the connection's context (`mcpContext.ts`).
 *
 * Isolation: every call works in the projects of the client's MCP roots (else the working folder) plus
 * global, as recall does in the editor; a memory of another project is "not found" here.
 * Audit: every call is in the audit log with the client's name from `initialize` (see audit.ts); every
 * recall and read is in the ledger of what agents were shown, with the client's name and version.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MnemoService } from '../service';
import { createMcpContext, type McpServerOptions } from './mcpContext';
import { registerResources } from './resources';
import { MCP_TOOLS } from './tools';
import { registerTool } from './tools/tool';
import { MCP_INSTRUCTIONS } from '../shared/mnemoText';
import { MNEMO_VERSION } from '../shared/version';

export { provenance, type McpServerOptions } from './mcpContext';

export const MCP_SERVER_NAME = 'mnemo';

/** Builds the MCP server for one client connection. */
export function createMcpServer(svc: MnemoService, opts: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MNEMO_VERSION, title: 'Mnemo memory' },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: MCP_INSTRUCTIONS,
    },
  );
  const ctx = createMcpContext(svc, server, opts);
  for (const tool of MCP_TOOLS) registerTool(ctx, tool);
  registerResources(ctx);
  return server;
}
