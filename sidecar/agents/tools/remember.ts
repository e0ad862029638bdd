/** The MCP tool `remember`: one fact of an agent, through the rules gate, pending a person's review. */
import { z } from 'zod';
import { CATEGORIES } from '../../model';
import { agentName, auditAgentRead } from '../audit';
import { gateAgentFact } from '../gate';
import { ok } from '../mcpContext';
import { defineTool } from './tool';

export const rememberTool = defineTool({
  name: 'remember',
  title: 'Remember a fact',
  description:
    'Remember one decision, setting, convention or fix for this project, in one or two self-contained sentences (e.g. "Use pnpm, not npm, in this repo."). It goes through the same pipeline as everything Mnemo learns: secrets are redacted, hedges, questions and small talk are refused, a repeat refreshes the memory it repeats, one marked wrong is blocked, and the new memory waits for a person to confirm it before recall returns it.',
  inputSchema: {
    text: z
      .string()
      .trim()
      .min(1, 'remember needs a non-empty "text".')
      .max(2000, 'The text is longer than 2000 characters; remember one fact at a time.')
      .describe('The fact, self-contained.'),
    category: z
      .enum(CATEGORIES)
      .optional()
      .describe(
        'persona (preferences, habits), episodic (events), instruction (rules, workflows, decisions). Guessed when omitted.',
      ),
    why: z
      .string()
      .trim()
      .max(500, '"why" is longer than 500 characters.')
      .optional()
      .describe('Why it holds (the reason or evidence); kept with the memory.'),
  },
  outputSchema: {
    outcome: z.enum(['stored', 'refreshed', 'pending', 'dropped']),
    id: z.string().optional(),
    project_id: z.string(),
    reason: z.string(),
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(ctx, { text, category, why }) {
    const { svc, server } = ctx;
    const p = await ctx.currentProjects();
    // The reason is stored with the fact: the rules gate reads both, as the memory will.
    const stored = why ? `${text} (why: ${why})` : text;
    const gate = gateAgentFact(stored);
    if (!gate.keep) {
      auditAgentRead(svc, server, 'remember', p, [], `refused by ${gate.reason}`);
      return ok(`Not remembered: the rules drop this (${gate.reason}); state it as a decision or fact.`, {
        outcome: 'dropped',
        project_id: p.primary,
        reason: gate.reason,
      });
    }
    const client = agentName(server);
    const d = await svc.remember({
      text: stored,
      project_id: p.primary,
      category: category ?? gate.category,
      source_type: 'chat',
      source_ref: [`mcp:${client}`],
      added_by: `agent:${client}`,
      pending: true,
      tier: 'agent',
    });
    const what =
      d.outcome === 'dropped'
        ? `Not remembered: ${d.reason}.`
        : d.outcome === 'refreshed'
          ? `Already known; refreshed ${d.id}.`
          : `Remembered as ${d.id} in ${p.primary}; it waits for a person to confirm it.`;
    return ok(what, {
      outcome: d.outcome,
      ...(d.id ? { id: d.id } : {}),
      project_id: p.primary,
      reason: d.reason,
    });
  },
});
