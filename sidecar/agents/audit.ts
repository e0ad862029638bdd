/**
 * Agent calls in the audit log (`<data dir>/audit/audit.jsonl`, the one every process appends to).
 * Changes an agent makes (remember, mark_wrong, report) are audited by the service itself with
 * `by: agent:<client>`; what an agent reads is recorded here as an `export` entry — memories leaving
 * the store for an agent — naming the client (from MCP `initialize`), the tool and the memory ids.
 * The query text is not written there: it may hold what the user typed. The ledger of what agents were
 * shown (served.ts) has the redacted query, the items and the tokens of every read.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { redactTextSync } from '../pipeline/redact';
import type { ServedTo } from '../protocol';
import { estimateTokens } from '../recall/format';
import { recordServed, servedTo } from '../served';
import type { MnemoService } from '../service';
import { round } from '../util/numbers';
import type { McpProjects } from './projects';

/** `claude-code 1.0.3`, from the client's initialize request; `unknown client` before it. */
export function agentName(server: McpServer): string {
  const v = server.server.getClientVersion();
  if (!v?.name) return 'unknown-client';
  return `${v.name.replace(/\s+/g, '-')}${v.version ? `@${v.version}` : ''}`;
}

export function auditAgentRead(
  svc: MnemoService,
  server: McpServer,
  tool: string,
  projects: McpProjects,
  ids: string[],
  note?: string,
): void {
  try {
    svc.audit.append([
      {
        at: new Date().toISOString(),
        action: 'export',
        project_id: projects.primary,
        by: `agent:${agentName(server)}`,
        note: `MCP ${tool}: ${ids.length} memor${ids.length === 1 ? 'y' : 'ies'}${ids.length ? ` (${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''})` : ''} in ${projects.ids.join(', ')}${note ? `; ${redactTextSync(note).text}` : ''}`,
      },
    ]);
  } catch {
    // an audit write failing must not fail the agent's call; the service's own writes still throw
  }
}

/**
 * The client as the ledger records it: MCP `clientInfo` name and version (printable, redacted, cut: the
 * client chose them), and the tool it called.
 */
export function mcpClient(server: McpServer, tool: string): ServedTo {
  const v = server.server.getClientVersion();
  return servedTo({ surface: 'mcp', name: v?.name || 'unknown-client', version: v?.version, tool });
}

/** A read (search, get, a resource) in the ledger like a recall: what the agent was shown, in `text`'s tokens. */
export function ledgerAgentRead(
  svc: MnemoService,
  server: McpServer,
  read: {
    tool: string;
    projects: McpProjects;
    query: string;
    items: { id: string; project_id: string; score?: number }[];
    text: string;
  },
): Promise<void> {
  return recordServed(svc, {
    served_to: mcpClient(server, read.tool),
    query: read.query,
    project_ids: read.projects.ids,
    items: read.items.map((i) => ({
      id: i.id,
      kind: 'memory',
      score: round(i.score ?? 1),
      project_id: i.project_id,
    })),
    tokens: estimateTokens(read.text),
  });
}
