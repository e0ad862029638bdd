/** The MCP tool `get`: one memory by id with its evidence (provenance and its history in the audit log). */
import { auditAgentRead, ledgerAgentRead } from '../audit';
import { ok, provenance } from '../mcpContext';
import { MEMORY_ID } from './schemas';
import { defineTool } from './tool';

export const getTool = defineTool({
  name: 'get',
  title: 'Get a memory with its evidence',
  description:
    'One memory of this project by id, with its evidence: where it came from (source_ref: messages, commands, file:line) and its history in the audit log (created, confirmed, refreshed, marked wrong, by whom).',
  inputSchema: {
    id: MEMORY_ID,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(ctx, { id }) {
    const { svc, server } = ctx;
    const p = await ctx.currentProjects();
    const m = await ctx.visible(id);
    const history = svc
      .auditList({ memory_id: id, limit: 20 })
      .map((e) => ({ at: e.at, action: e.action, by: e.by, ...(e.note ? { note: e.note } : {}) }));
    auditAgentRead(svc, server, 'get', p, [id]);
    const evidence = {
      memory: provenance(m),
      times_seen: m.times_seen,
      last_seen_at: m.last_seen_at,
      reason: m.reason,
      history,
    };
    const shown = JSON.stringify(evidence, null, 2);
    await ledgerAgentRead(svc, server, { tool: 'get', projects: p, query: '', items: [m], text: shown });
    return ok(shown, evidence);
  },
});
