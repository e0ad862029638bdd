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
import { z } from 'zod';
import { CATEGORIES, GLOBAL_PROJECT, tierOf, type Memory } from '../model';
import type { MnemoService } from '../service';
import { agentName, auditAgentRead, ledgerAgentRead, mcpClient } from './audit';
import { gateAgentFact } from './gate';
import { createMcpContext, ok, provenance, VISIBLE, type McpServerOptions } from './mcpContext';
import { ITEM, MEMORY_ID } from './tools/schemas';
import { cutText, oneLine } from '../shared/text';
import { MCP_INSTRUCTIONS, MCP_NOTHING_RECALLED } from '../shared/mnemoText';
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
  const { currentProjects, visible, run } = createMcpContext(svc, server, opts);

  server.registerTool(
    'recall',
    {
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
    },
    ({ query, top_k }) =>
      run('recall', async () => {
        const p = await currentProjects();
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
      }),
  );

  server.registerTool(
    'remember',
    {
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
    },
    ({ text, category, why }) =>
      run('remember', async () => {
        const p = await currentProjects();
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
      }),
  );

  server.registerTool(
    'mark_wrong',
    {
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
    },
    ({ id, reason }) =>
      run('mark_wrong', async () => {
        const p = await currentProjects();
        await visible(id);
        const client = agentName(server);
        const m = await svc.markWrong({ id, by: `agent:${client}` });
        auditAgentRead(svc, server, 'mark_wrong', p, [id], `reason: ${reason}`);
        if (m.status !== 'wrong')
          return ok(
            `${id} was confirmed by ${m.confirmed_by ?? 'a person'}, so it is not marked wrong by an agent: it waits for their review.`,
            { id: m.id, status: m.status },
          );
        return ok(`${id} is marked wrong; it will not be recalled again.`, { id: m.id, status: m.status });
      }),
  );

  server.registerTool(
    'report',
    {
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
    },
    ({ id, verdict, note }) =>
      run('report', async () => {
        await visible(id);
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
      }),
  );

  server.registerTool(
    'search',
    {
      title: 'Search memories',
      description:
        "Search this project's memories (and global ones) by meaning (default) or by keywords; unlike recall it also lists memories waiting for review, and returns up to `limit` results with their provenance.",
      inputSchema: {
        query: z.string().trim().min(1, 'search needs a non-empty "query".').max(2000),
        mode: z
          .enum(['semantic', 'keyword'])
          .optional()
          .describe('semantic (default) or keyword (every word must appear).'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(100)
          .optional()
          .describe('At most this many results (default 10).'),
      },
      outputSchema: { project_ids: z.array(z.string()), items: z.array(ITEM) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, mode, limit }) =>
      run('search', async () => {
        const p = await currentProjects();
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
        const lines = items.map(
          (i) => `- ${i.id} [${i.status}, ${i.category}, ${i.tier}] ${oneLine(i.text)}`,
        );
        const shown = items.length ? lines.join('\n') : `No memories match in ${p.ids.join(', ')}.`;
        await ledgerAgentRead(svc, server, { tool: 'search', projects: p, query, items, text: shown });
        return ok(shown, { project_ids: p.ids, items });
      }),
  );

  server.registerTool(
    'get',
    {
      title: 'Get a memory with its evidence',
      description:
        'One memory of this project by id, with its evidence: where it came from (source_ref: messages, commands, file:line) and its history in the audit log (created, confirmed, refreshed, marked wrong, by whom).',
      inputSchema: {
        id: MEMORY_ID,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ id }) =>
      run('get', async () => {
        const p = await currentProjects();
        const m = await visible(id);
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
      }),
  );

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
