/**
 * The MCP tool `report`: an agent says a memory it was served helped (`used`) or is `wrong`; counted once per
 * recall that served it.
 */
import { z } from 'zod';
import { agentName, mcpClient } from '../audit';
import { ok } from '../mcpContext';
import { MEMORY_ID } from './schemas';
import { defineTool } from './tool';

export const reportTool = defineTool({
  name: 'report',
  title: 'Report a recalled memory as used or wrong',
  description:
    'Say whether a memory that recall, search or get gave you in this task helped (`used`) or turned out wrong (`wrong`), by its id, with a short note. `used` raises its confidence a little; `wrong` lowers it and puts it before a person in the review queue — a memory a person confirmed is only flagged, never changed by an agent. Counted once per recall that served it to you in the last 24 hours; audited.',
  inputSchema: {
    id: MEMORY_ID,
    verdict: z.enum(['used', 'wrong']).describe('used: it helped; wrong: it is not true (any more).'),
    note: z
      .string()
      .trim()
      .max(500, '"note" is longer than 500 characters.')
      .optional()
      .describe('Why, in a sentence (kept in the audit log).'),
  },
  outputSchema: {
    id: z.string(),
    verdict: z.enum(['used', 'wrong']),
    counted: z.boolean(),
    status: z.string(),
    confidence_score: z.number(),
    in_review: z.boolean(),
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(ctx, { id, verdict, note }) {
    const { svc, server } = ctx;
    await ctx.visible(id);
    const client = agentName(server);
    const r = await svc.report({
      id,
      verdict,
      note,
      served_to: mcpClient(server, 'report'),
      by: `agent:${client}`,
    });
    const m = r.memory;
    const confidence = `${Math.round(m.confidence_score * 100)}%`;
    const what = !r.counted
      ? `Already counted: every recall that served ${id} to you was reported on; nothing changed.`
      : verdict === 'used'
        ? `Counted: ${id} was used (confidence ${confidence}).`
        : m.status === 'confirmed'
          ? `${id} was confirmed by ${m.confirmed_by ?? 'a person'}; it waits for their review, unchanged.`
          : `${id} waits for a person's review (confidence lowered to ${confidence}).`;
    return ok(what, {
      id,
      verdict,
      counted: r.counted,
      status: m.status,
      confidence_score: m.confidence_score,
      in_review: m.status === 'pending' || !!m.contested_by || !!m.flagged_by,
    });
  },
});
