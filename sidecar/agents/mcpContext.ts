/**
 * What every MCP tool and resource of one client connection works against (server.ts builds it once per
 * connection): the service, the client's projects (from its MCP roots), the memories it may see, and
 * `run`, which turns Mnemo's errors into one sentence with isError and retries a transient store error.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MnemoError, NotFoundError, errorMessage } from '../shared/errors';
import { GLOBAL_PROJECT, tierOf, type Memory, type MemoryStatus } from '../model';
import type { MnemoService } from '../service';
import { agentName } from './audit';
import { resolveProjects, type McpProjects } from './projects';

/**
 * Chroma 1.x answers a query on a collection whose first vectors are not flushed yet with "Error creating
 * hnsw segment reader: Nothing found on disk" (chroma-core/chroma#4212); seen when a fresh store gets
 * writes from several processes at once. It passes within a second.
 */
const TRANSIENT_STORE_ERROR = /hnsw segment reader|Nothing found on disk/i;
const TRANSIENT_ATTEMPTS = 4;
/** How long a client may take to answer roots/list (it may be busy starting up). */
const ROOTS_TIMEOUT_MS = 30_000;

/** Statuses an agent sees in search and resources: not tombstones, not archived. */
export const VISIBLE: MemoryStatus[] = ['active', 'confirmed', 'pending'];

export interface McpServerOptions {
  /** A fixed project (`--project`, MNEMO_PROJECT) instead of the client's roots. */
  project?: string;
  /** The folder used when the client has no roots (default process.cwd()). */
  cwd?: string;
  log?: (line: string) => void;
}

/** What the MCP tools show of a memory: its text and where it came from. */
export function provenance(m: Memory) {
  return {
    id: m.id,
    text: m.text,
    category: m.category,
    status: m.status,
    project_id: m.project_id,
    confidence_score: m.confidence_score,
    source_type: m.source_type,
    source_ref: m.source_ref,
    added_by: m.added_by,
    created_at: m.created_at,
    ...(m.confirmed_by ? { confirmed_by: m.confirmed_by } : {}),
    /** Who vouches for it: person > own-turn > agent > outside (model.ts `Tier`). */
    tier: tierOf(m),
  };
}

export function ok(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
}

function fail(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** One client connection's context, shared by its tools and resources. */
export interface McpContext {
  svc: MnemoService;
  server: McpServer;
  log: (line: string) => void;
  /** The client's projects (its MCP roots, else the pinned project or the working folder's). */
  currentProjects(): Promise<McpProjects>;
  /** A memory the client may see: of its projects or global; else NotFoundError. */
  visible(id: string): Promise<Memory>;
  /**
   * Runs a tool body; Mnemo's errors become one sentence with isError, as MCP tools report failures.
   * Every tool is idempotent (memory ids are content hashes), so a transient store error is retried.
   */
  run(tool: string, fn: () => Promise<CallToolResult>): Promise<CallToolResult>;
}

/** Builds the context of one client connection on its server (and listens for its roots changing). */
export function createMcpContext(
  svc: MnemoService,
  server: McpServer,
  opts: McpServerOptions = {},
): McpContext {
  const log = opts.log ?? (() => undefined);
  let projects: Promise<McpProjects> | undefined;
  const cwd = opts.cwd ?? process.cwd();
  /**
   * The client's projects: asked once from its roots (one request however many calls arrive at once),
   * again when it says they changed. A client that declared roots but does not answer gets an error,
   * never the working folder's project: that could write into the wrong project.
   */
  const resolve = async (): Promise<McpProjects> => {
    let roots: { uri: string }[] | undefined;
    if (!opts.project && server.server.getClientCapabilities()?.roots) {
      try {
        roots = (await server.server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS })).roots;
      } catch (e) {
        throw new MnemoError(
          `Could not learn this client's project from its MCP roots (${errorMessage(e)}); try again.`,
        );
      }
    }
    const p = resolveProjects({ pinned: opts.project, roots, cwd });
    log(`MCP client ${agentName(server)} works in ${p.ids.join(', ')} (from ${p.from}).`);
    return p;
  };
  const currentProjects = (): Promise<McpProjects> => {
    projects ??= resolve().catch((e: unknown) => {
      projects = undefined;
      throw e;
    });
    return projects;
  };
  server.server.setNotificationHandler(
    z.object({
      method: z.literal('notifications/roots/list_changed'),
      params: z.object({}).passthrough().optional(),
    }),
    () => {
      projects = undefined;
    },
  );

  const visible = async (id: string): Promise<Memory> => {
    const p = await currentProjects();
    const m = await svc.get(id);
    if (m.project_id !== GLOBAL_PROJECT && !p.ids.includes(m.project_id))
      throw new NotFoundError(`No memory with id ${id} in ${p.ids.join(', ')}.`);
    return m;
  };

  const run = async (tool: string, fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        if (attempt < TRANSIENT_ATTEMPTS && TRANSIENT_STORE_ERROR.test(errorMessage(e))) {
          log(`MCP ${tool}: transient store error, retrying (${errorMessage(e)})`);
          await new Promise((r) => setTimeout(r, 250 * attempt));
          continue;
        }
        log(
          `MCP ${tool} by ${agentName(server)} failed: ${e instanceof Error && !(e instanceof NotFoundError) ? (e.stack ?? e.message) : errorMessage(e)}`,
        );
        return fail(errorMessage(e));
      }
    }
  };

  return { svc, server, log, currentProjects, visible, run };
}
