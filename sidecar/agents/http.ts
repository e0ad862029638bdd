/**
 * `mnemo mcp --http`: the MCP server over streamable HTTP on 127.0.0.1 only, behind a bearer token.
 * The token is generated once per install (32 random bytes, base64url) into `<data dir>/mcp/token`
 * (mode 0600); a request without `Authorization: Bearer <token>` gets 401 before the SDK sees it, one from
 * a web page (an `Origin` other than the server's own) 403. One MCP session (and one McpServer) per
 * client, closed after {@link SESSION_IDLE_MS} unused, at most {@link MAX_SESSIONS} at once (the least
 * recently used goes first); DNS-rebinding protection allows only our own host.
 *
 * The port is the install's own (`<data dir>/mcp/port`, picked at random once), not a fixed number every
 * other local user knows: a user who took a well-known port first received the bearer token of every
 * client configured for it. When the port is taken by another user, the server refuses to start and
 * replaces the token (a client may already have sent the old one there).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createFileOnce, replaceFile } from '../shared/atomicFile';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, InvalidInputError } from '../shared/errors';

/** How long a session may go unused before it is closed (its McpServer and transport freed). */
export const SESSION_IDLE_MS = 30 * 60_000;
/** The most sessions kept at once; a new one beyond it closes the least recently used. */
export const MAX_SESSIONS = 64;
/** The largest request body read (a bigger one is refused with 413 before it is read whole). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function tokenFile(dataDir: string): string {
  return join(dataDir, 'mcp', 'token');
}

export function portFile(dataDir: string): string {
  return join(dataDir, 'mcp', 'port');
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

/** Replaces the install's token with a new one (the old one may have been sent to someone else). */
export function replaceToken(dataDir: string): void {
  mkdirSync(join(dataDir, 'mcp'), { recursive: true, mode: 0o700 });
  replaceFile(tokenFile(dataDir), randomBytes(32).toString('base64url') + '\n');
}

/**
 * The install's own port for `mnemo mcp --http`: picked at random (20000–59999) on first use and kept in
 * `<data dir>/mcp/port` (0600, in the 0700 data folder: other users cannot read which one it is).
 */
export function installPort(dataDir: string): number {
  const file = portFile(dataDir);
  const read = (): number | undefined => {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
  };
  if (existsSync(file)) {
    const n = read();
    if (n) return n;
  }
  mkdirSync(join(dataDir, 'mcp'), { recursive: true, mode: 0o700 });
  const port = 20000 + (randomBytes(2).readUInt16BE(0) % 40000);
  if (createFileOnce(file, `${port}\n`)) return port;
  const theirs = existsSync(file) ? read() : undefined;
  if (theirs) return theirs;
  replaceFile(file, `${port}\n`);
  return port;
}

/**
 * The uid of the process listening on 127.0.0.1 (or every address) at `port`, from /proc/net/tcp{,6};
 * undefined where that is not known (not Linux, not found).
 */
export function listenerUid(port: number): number | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && f[1]?.endsWith(`:${hex}`)) return Number(f[7]);
    }
  }
  return undefined;
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

async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error(`The request body is larger than ${limit / 1024 / 1024} MiB.`);
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
  /** Default {@link SESSION_IDLE_MS}. */
  sessionIdleMs?: number;
  /** Default {@link MAX_SESSIONS}. */
  maxSessions?: number;
}

/** An `Origin` header that is not the server's own (a web page): such a request is refused. */
function foreignOrigin(req: IncomingMessage, port: number): string | undefined {
  const origin = req.headers.origin;
  if (origin === undefined) return undefined; // not a browser
  const ok = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  return ok.includes(String(origin).toLowerCase()) ? undefined : String(origin);
}

export interface HttpMcpHandle {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  mcp: McpServer;
  /** When a request of it last arrived (epoch ms). */
  used: number;
}

/** Sessions by id, oldest use first; closes the idle ones and, beyond the cap, the least recently used. */
class Sessions {
  private readonly byId = new Map<string, Session>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly max: number,
    private readonly log: (line: string) => void,
  ) {
    this.sweep = setInterval(() => this.closeIdle(), Math.min(60_000, Math.max(1000, idleMs / 4)));
    this.sweep.unref();
  }

  /** The session, marked as used now. */
  get(id: string): Session | undefined {
    const s = this.byId.get(id);
    if (!s) return undefined;
    s.used = Date.now();
    this.byId.delete(id);
    this.byId.set(id, s); // Map order: least recently used first
    return s;
  }

  add(id: string, s: Session): void {
    this.byId.set(id, s);
    while (this.byId.size > this.max) {
      const [oldest] = this.byId.keys();
      this.close(oldest!, `more than ${this.max} sessions`);
    }
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  private closeIdle(): void {
    const before = Date.now() - this.idleMs;
    for (const [id, s] of this.byId) if (s.used < before) this.close(id, 'unused too long');
  }

  private close(id: string, why: string): void {
    const s = this.byId.get(id);
    this.byId.delete(id);
    if (!s) return;
    this.log(`Closing MCP session ${id.slice(0, 8)} (${why}).`);
    void s.transport.close().catch(() => undefined);
    void s.mcp.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweep);
    for (const s of this.byId.values()) await s.transport.close().catch(() => undefined);
    this.byId.clear();
  }
}

export async function serveHttp(opts: HttpMcpOptions): Promise<HttpMcpHandle> {
  const sessions = new Sessions(
    opts.sessionIdleMs ?? SESSION_IDLE_MS,
    opts.maxSessions ?? MAX_SESSIONS,
    opts.log,
  );
  let port = opts.port;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') return sendJson(res, 404, 'Not found: the MCP endpoint is /mcp.');
    const origin = foreignOrigin(req, port);
    if (origin !== undefined)
      return sendJson(
        res,
        403,
        `Requests from web pages (Origin ${origin}) are refused; Mnemo serves local agents.`,
      );
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
          sessions.add(id, { transport, mcp, used: Date.now() });
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
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, '127.0.0.1', () => resolve());
    });
  } catch (e) {
    await sessions.closeAll();
    throw listenError(e, opts.port);
  }
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : opts.port;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await sessions.closeAll();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** One sentence for a port the server could not listen on. */
function listenError(e: unknown, port: number): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    const uid = listenerUid(port);
    const mine = process.getuid?.();
    const who =
      uid === undefined
        ? 'another program'
        : uid === mine
          ? 'another program of yours'
          : `another user (uid ${uid})`;
    return Object.assign(
      new InvalidInputError(
        `127.0.0.1:${port} is already taken by ${who}; start mnemo mcp --http with --port N (0 for any free port) and point your clients there.`,
      ),
      { takenByOtherUser: uid !== undefined && uid !== mine },
    );
  }
  if (code === 'EACCES')
    return new InvalidInputError(`Port ${port} needs privileges; pick one above 1024 with --port N.`);
  return new InvalidInputError(`mnemo mcp --http cannot listen on 127.0.0.1:${port} (${errorMessage(e)}).`);
}
