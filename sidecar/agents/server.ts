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
import { GLOBAL_PROJECT, tierOf, type Memory } from '../model';
import type { MnemoService } from '../service';
import { agentName, auditAgentRead, ledgerAgentRead, mcpClient } from './audit';
import { createMcpContext, ok, provenance, VISIBLE, type McpServerOptions } from './mcpContext';
import { markWrongTool } from './tools/markWrong';
import { recallTool } from './tools/recall';
import { rememberTool } from './tools/remember';
import { ITEM, MEMORY_ID } from './tools/schemas';
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
  const { currentProjects, visible, run } = ctx;
  for (const tool of [recallTool, rememberTool, markWrongTool]) registerTool(ctx, tool);

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
