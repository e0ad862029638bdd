/**
 * Mnemo's MCP server (official `@modelcontextprotocol/sdk`): the tools `recall`, `remember`,
 * `mark_wrong`, `report`, `search` and `get`, and the project's memories as resources, all over the public
 * methods of one {@link MnemoService} — the same core and data folder as the extension's sidecar.
 * One McpServer per client connection (stdio: one; HTTP: one per session), all sharing one service.
 *
 * Isolation: every call works in the projects of the client's MCP roots (else the working folder) plus
 * global, as recall does in the editor; a memory of another project is "not found" here.
 * Audit: every call is in the audit log with the client's name from `initialize` (see audit.ts); every
 * recall and read is in the ledger of what agents were shown, with the client's name and version.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { GLOBAL_PROJECT, tierOf, type Memory } from '../model';
import type { MnemoService } from '../service';
import { auditAgentRead, ledgerAgentRead } from './audit';
import { createMcpContext, provenance, VISIBLE, type McpServerOptions } from './mcpContext';
import { MCP_TOOLS } from './tools';
import { registerTool } from './tools/tool';
import { cutText, oneLine } from '../shared/text';
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
  const { currentProjects, visible } = ctx;
  for (const tool of MCP_TOOLS) registerTool(ctx, tool);

  // Resources: the project's memories, one list and one resource per memory.
  server.registerResource(
    'memories',
    'mnemo://memories',
    {
      title: "This project's memories",
      description:
        'Every active, confirmed and pending memory of the projects of this client (and global ones), as Markdown.',
      mimeType: 'text/markdown',
    },
    async (uri): Promise<ReadResourceResult> => {
      const p = await currentProjects();
      const all: Memory[] = [];
      for (const project_id of [...p.ids, GLOBAL_PROJECT])
        all.push(
          ...(await svc.list({ project_id, include_global: false, status: VISIBLE, limit: 1000 })).items,
        );
      auditAgentRead(
        svc,
        server,
        'resources/read mnemo://memories',
        p,
        all.map((m) => m.id),
      );
      const text = [
        `# Mnemo memories of ${p.ids.join(', ')}`,
        '',
        ...all.map(
          (m) =>
            `- **${m.category}** ${oneLine(m.text)} _(${m.status}, ${tierOf(m)}, ${m.id}${m.project_id === GLOBAL_PROJECT ? ', global' : ''})_`,
        ),
      ].join('\n');
      const read = { tool: 'resources/read mnemo://memories', projects: p, query: '', items: all, text };
      await ledgerAgentRead(svc, server, read);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
    },
  );
  server.registerResource(
    'memory',
    new ResourceTemplate('mnemo://memory/{id}', {
      list: async () => {
        const p = await currentProjects();
        const items: Memory[] = [];
        for (const project_id of [...p.ids, GLOBAL_PROJECT])
          items.push(
            ...(await svc.list({ project_id, include_global: false, status: VISIBLE, limit: 200 })).items,
          );
        return {
          resources: items.map((m) => ({
            uri: `mnemo://memory/${m.id}`,
            name: m.id,
            title: cutText(m.text, 80),
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'One memory',
      description: 'A memory of this project with its provenance, as JSON.',
      mimeType: 'application/json',
    },
    async (uri, vars): Promise<ReadResourceResult> => {
      const p = await currentProjects();
      const m = await visible(String(vars.id));
      auditAgentRead(svc, server, 'resources/read mnemo://memory', p, [m.id]);
      const text = JSON.stringify(provenance(m), null, 2);
      const read = { tool: 'resources/read mnemo://memory', projects: p, query: '', items: [m], text };
      await ledgerAgentRead(svc, server, read);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text }] };
    },
  );
  return server;
}
