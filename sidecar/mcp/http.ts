/**
 * `mnemo mcp --http`: the MCP server over streamable HTTP on 127.0.0.1 only, behind a bearer token.
 * The token is generated once per install (32 random bytes, base64url) into `<data dir>/mcp/token`
 * (mode 0600); a request without `Authorization: Bearer <token>` gets 401 before the SDK sees it.
 * One MCP session (and one McpServer) per client; DNS-rebinding protection allows only our own host.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createFileOnce, replaceFile } from '../util/atomicFile';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../errors';

/** Default port of `mnemo mcp --http` (any free port with --port 0). */
export const DEFAULT_MCP_PORT = 7437;

export function tokenFile(dataDir: string): string {
  return join(dataDir, 'mcp', 'token');
}

/** The install's bearer token, created (0600) on first use. */
export function ensureToken(dataDir: string): string {
  const file = tokenFile(dataDir);
  if (existsSync(file)) {
    const t = readFileSync(file, 'utf8').trim();
    if (t.length >= 32) return t;
  }
  mkdirSync(join(dataDir, 'mcp'), { recursive: true, mode: 0o700 });
  // Two servers starting at once agree on one token: the first one written wins, the other reads it.
  const token = randomBytes(32).toString('base64url');
  if (createFileOnce(file, token + '\n')) return token;
  const theirs = readFileSync(file, 'utf8').trim();
  if (theirs.length >= 32) return theirs;
  replaceFile(file, token + '\n'); // a damaged token file
  return token;
}

function bearerOk(req: IncomingMessage, token: string): boolean {
  const h = req.headers.authorization;
  const m = typeof h === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function sendJson(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}

async function readBody(req: IncomingMessage, limit = 4 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error('The request body is larger than 4 MiB.');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export interface HttpMcpOptions {
  port: number;
  token: string;
  /** A new McpServer for each session. */
  newServer: () => McpServer;
  log: (line: string) => void;
}

export interface HttpMcpHandle {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function serveHttp(opts: HttpMcpOptions): Promise<HttpMcpHandle> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; mcp: McpServer }>();
  let port = opts.port;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') return sendJson(res, 404, 'Not found: the MCP endpoint is /mcp.');
    if (!bearerOk(req, opts.token)) {
      return sendJson(
        res,
        401,
        'Missing or wrong bearer token: send "Authorization: Bearer <token>" with the token from mnemo mcp --http.',
        { 'www-authenticate': 'Bearer realm="mnemo"' },
      );
    }
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (req.method === 'POST') {
      let body: unknown;
      try {
        body = await readBody(req);
      } catch (e) {
        return sendJson(res, 400, `The request body is not valid JSON (${errorMessage(e)}).`);
      }
      if (existing) return existing.transport.handleRequest(req, res, body);
      if (sid !== undefined) return sendJson(res, 404, 'Unknown MCP session; initialize a new one.');
      if (!isInitializeRequest(body))
        return sendJson(res, 400, 'The first request of a session must be initialize.');
      const mcp = opts.newServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableDnsRebindingProtection: true,
        allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, mcp });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
        void mcp.close().catch(() => undefined);
      };
      await mcp.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!existing) return sendJson(res, 400, 'Missing or unknown mcp-session-id header.');
      return existing.transport.handleRequest(req, res);
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      opts.log(`MCP HTTP request failed: ${errorMessage(e)}`);
      if (!res.headersSent) sendJson(res, 500, `Mnemo hit an internal error: ${errorMessage(e)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : opts.port;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const s of sessions.values()) await s.transport.close().catch(() => undefined);
      sessions.clear();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
