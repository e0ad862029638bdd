/** The MCP tool `mark_wrong`: a memory of the client's projects marked wrong; a confirmed one is flagged. */
import { z } from 'zod';
import { agentName, auditAgentRead } from '../audit';
import { ok } from '../mcpContext';
import { MEMORY_ID } from './schemas';
import { defineTool } from './tool';

export const markWrongTool = defineTool({
  name: 'mark_wrong',
  title: 'Mark a memory wrong',
  description:
    'Mark a memory of this project as wrong (by its id from recall or search), with the reason. It is never recalled again and the same fact is not re-learned. A memory a person confirmed is not changed by an agent: it is flagged for their review instead; a global memory is marked wrong only by a person.',
  inputSchema: {
    id: MEMORY_ID,
    reason: z
      .string()
      .trim()
      .min(1, 'mark_wrong needs a "reason".')
      .max(500)
      .describe('What is wrong about it.'),
  },
  outputSchema: { id: z.string(), status: z.string() },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(ctx, { id, reason }) {
    const { svc, server } = ctx;
    const p = await ctx.currentProjects();
    await ctx.visible(id);
    const client = agentName(server);
    const m = await svc.markWrong({ id, by: `agent:${client}` });
    auditAgentRead(svc, server, 'mark_wrong', p, [id], `reason: ${reason}`);
    if (m.status !== 'wrong')
      return ok(
        `${id} was confirmed by ${m.confirmed_by ?? 'a person'}, so it is not marked wrong by an agent: it waits for their review.`,
        { id: m.id, status: m.status },
      );
    return ok(`${id} is marked wrong; it will not be recalled again.`, { id: m.id, status: m.status });
  },
});
