/**
 * The MCP resources: the client's memories (its projects' and global ones) as one Markdown list,
 * `mnemo://memories`, and one JSON resource per memory, `mnemo://memory/{id}`. Every read is audited and in
 * the ledger of what agents were shown, as the tools' reads are.
 */
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { GLOBAL_PROJECT, tierOf, type Memory } from '../model';
import { cutText, oneLine } from '../shared/text';
import { auditAgentRead, ledgerAgentRead } from './audit';
import { provenance, VISIBLE, type McpContext } from './mcpContext';

/** Registers the resources on one connection's server, after its tools. */
export function registerResources(ctx: McpContext): void {
  registerMemoryList(ctx);
  registerMemory(ctx);
}

/** `mnemo://memories`: every active, confirmed and pending memory the client may see, as Markdown. */
function registerMemoryList(ctx: McpContext): void {
  const { svc, server } = ctx;
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
      const p = await ctx.currentProjects();
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
}

/** `mnemo://memory/{id}`: one memory with its provenance, as JSON; listed up to 200 per project. */
function registerMemory(ctx: McpContext): void {
  const { svc, server } = ctx;
  server.registerResource(
    'memory',
    new ResourceTemplate('mnemo://memory/{id}', {
      list: async () => {
        const p = await ctx.currentProjects();
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
      const p = await ctx.currentProjects();
      const m = await ctx.visible(String(vars.id));
      auditAgentRead(svc, server, 'resources/read mnemo://memory', p, [m.id]);
      const text = JSON.stringify(provenance(m), null, 2);
      const read = { tool: 'resources/read mnemo://memory', projects: p, query: '', items: [m], text };
      await ledgerAgentRead(svc, server, read);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text }] };
    },
  );
}
