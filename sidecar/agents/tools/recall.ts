/**
 * The MCP tool `recall`: what Mnemo remembers that matters for a task, as one block ready for context, with
 * the items' provenance.
 */
import { z } from 'zod';
import { MCP_NOTHING_RECALLED } from '../../shared/mnemoText';
import { auditAgentRead, mcpClient } from '../audit';
import { ok, provenance } from '../mcpContext';
import { ITEM } from './schemas';
import { defineTool } from './tool';

export const recallTool = defineTool({
  name: 'recall',
  title: 'Recall memories',
  description:
    "Recall what Mnemo remembers that matters for a task or question in this project (decisions, settings, conventions, past fixes), plus memories promoted to global. Call it at the start of every task with the task itself as the query. Returns one block ready to put in context — the memories, then evidence (past turns as they were said, with speaker and date) — and the items with their provenance (where each memory came from, who added or confirmed it). Never returns another project's memories.",
  inputSchema: {
    query: z
      .string()
      .trim()
      .min(1, 'recall needs a non-empty "query" (the task or question).')
      .max(2000)
      .describe('The task or question, in natural language.'),
    top_k: z
      .number()
      .int('top_k must be a whole number.')
      .min(1, 'top_k must be at least 1.')
      .max(20, 'top_k must be at most 20.')
      .optional()
      .describe('How many memories at most (default the user setting, 3).'),
  },
  outputSchema: {
    block: z.string(),
    tokens: z.number(),
    project_ids: z.array(z.string()),
    items: z.array(ITEM),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(ctx, { query, top_k }) {
    const { svc, server } = ctx;
    const p = await ctx.currentProjects();
    const r = await svc.recall({
      query,
      project_ids: p.ids,
      top_k,
      served_to: mcpClient(server, 'recall'),
    });
    const items = r.items.map((i) => ({
      ...provenance(i.memory),
      score: i.score,
      kind: i.kind,
      ...(i.memory.speaker ? { speaker: i.memory.speaker } : {}),
      ...(i.memory.occurred_at ? { occurred_at: i.memory.occurred_at } : {}),
    }));
    auditAgentRead(
      svc,
      server,
      'recall',
      p,
      items.map((i) => i.id),
    );
    return ok(r.items.length ? r.block : `${MCP_NOTHING_RECALLED}${p.ids.join(', ')}.`, {
      block: r.block,
      tokens: r.tokens,
      project_ids: p.ids,
      items,
    });
  },
});
