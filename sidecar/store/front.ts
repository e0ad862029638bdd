/**
 * The authenticating loopback front of the embedded store. Chroma 1.0.5's Rust server ignores every auth
 * setting (verified: a token provider in config.yaml and in the environment, and any Host header, are
 * all accepted; chroma-core/chroma #5363, #4965), so Chroma itself runs where no other process can reach it
 * (a private network namespace, reachable only through a Unix socket in the 0700 data folder: see
 * `isolation.ts`), and the Chroma JS client talks to this front instead:
 *
 * - bound to 127.0.0.1 on a free port, one per Mnemo process;
 * - every request must carry this process's secret token (`x-chroma-token` or `Authorization: Bearer`),
 *   compared in constant time: 401 otherwise;
 * - the Host header must be `127.0.0.1:<port>` or `localhost:<port>`: 403 otherwise (DNS rebinding);
 * - then the request is streamed to Chroma's socket, without the token.
 *
 * The token is 32 random bytes made when the front starts; it lives in memory only (never on disk, never
 * logged), so only this process can use its front.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface StoreFront {
  port: number;
  /** Headers the Chroma client must send (the token). */
  headers: Record<string, string>;
  close(): Promise<void>;
}

/** The front's answer when the Chroma server behind its socket is gone (the store reconnects on it). */
export const UPSTREAM_DOWN = 'The embedded Chroma server is not running.';

const REASON: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 502: 'Bad Gateway' };

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error: REASON[status] ?? 'Error', message }));
}

function presentedToken(req: IncomingMessage): string {
  const header = req.headers['x-chroma-token'];
  if (typeof header === 'string') return header;
  const auth = req.headers.authorization ?? '';
  return /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() ?? '';
}

function sameSecret(a: string, b: Buffer): boolean {
  const given = Buffer.from(a, 'utf8');
  return given.length === b.length && timingSafeEqual(given, b);
}

/** Starts the front on 127.0.0.1 and forwards authenticated requests to the Unix socket `socketPath`. */
export async function startStoreFront(socketPath: string): Promise<StoreFront> {
  const token = randomBytes(32).toString('base64url');
  const secret = Buffer.from(token, 'utf8');
  let port = 0;
  const server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').toLowerCase();
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
      return refuse(res, 403, 'The Host header is not this loopback address.');
    if (!sameSecret(presentedToken(req), secret))
      return refuse(res, 401, 'A valid Mnemo store token is required.');
    const headers = { ...req.headers };
    delete headers['x-chroma-token'];
    delete headers.authorization;
    headers.host = 'localhost';
    const upstream = request({ socketPath, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) refuse(res, 502, UPSTREAM_DOWN);
      else res.destroy();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
  server.unref(); // the front never keeps a process alive on its own
  return {
    port,
    headers: { 'x-chroma-token': token },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
