/** The MCP tool `search`: memories of the client's projects and global ones, by meaning or keywords. */
import { z } from 'zod';
import { GLOBAL_PROJECT, type Memory } from '../../model';
import { oneLine } from '../../shared/text';
import { auditAgentRead, ledgerAgentRead } from '../audit';
import { ok, provenance, VISIBLE } from '../mcpContext';
import { ITEM } from './schemas';
import { defineTool } from './tool';

export const searchTool = defineTool({
  name: 'search',
  title: 'Search memories',
  description:
    "Search this project's memories (and global ones) by meaning (default) or by keywords; unlike recall it also lists memories waiting for review, and returns up to `limit` results with their provenance.",
  inputSchema: {
    query: z.string().trim().min(1, 'search needs a non-empty "query".').max(2000),
    mode: z
      .enum(['semantic', 'keyword'])
      .optional()
      .describe('semantic (default) or keyword (every word must appear).'),
    limit: z.number().int().min(1).max(100).optional().describe('At most this many results (default 10).'),
  },
  outputSchema: { project_ids: z.array(z.string()), items: z.array(ITEM) },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(ctx, { query, mode, limit }) {
    const { svc, server } = ctx;
    const p = await ctx.currentProjects();
    const n = limit ?? 10;
    const scopes = [...p.ids, GLOBAL_PROJECT];
    const found = new Map<string, { memory: Memory; score: number }>();
    for (const project_id of scopes) {
      const r = await svc.search({
        query,
        mode: mode ?? 'semantic',
        project_id,
        include_global: false,
        status: VISIBLE,
        limit: n,
      });
      for (const i of r.items) if (!found.has(i.memory.id)) found.set(i.memory.id, i);
    }
    const items = [...found.values()]
      .sort((a, b) => b.score - a.score)
      .slice(0, n)
      .map((i) => ({ ...provenance(i.memory), score: i.score }));
    auditAgentRead(
      svc,
      server,
      'search',
      p,
      items.map((i) => i.id),
    );
    // One line per memory whatever its text holds: a line break in it cannot start a forged line.
    const lines = items.map((i) => `- ${i.id} [${i.status}, ${i.category}, ${i.tier}] ${oneLine(i.text)}`);
    const shown = items.length ? lines.join('\n') : `No memories match in ${p.ids.join(', ')}.`;
    await ledgerAgentRead(svc, server, { tool: 'search', projects: p, query, items, text: shown });
    return ok(shown, { project_ids: p.ids, items });
  },
});
