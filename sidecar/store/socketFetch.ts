/**
 * The Chroma client's transport to the embedded server in its private network namespace: HTTP/1.1 over
 * the server's Unix socket in the 0700 data folder, with `node:http` and one keep-alive agent.
 *
 * Why not the client's own `fetch`: Node's fetch cannot reach a Unix socket, so every request used to go
 * to an authenticating loopback front in this same process and from there to the socket — two HTTP
 * exchanges, both on the sidecar's one thread, and every bulk write piped through both. Measured here
 * (docs/benchmarks.md): a bulk import 8–11% faster and its memory peak 80–100 MB lower without them. And
 * no Mnemo process listens on a TCP port for the store any more.
 *
 * Chroma's own client maps HTTP statuses to its error classes in its `fetch` (`chroma-fetch.ts`), which a
 * transport given to the client replaces; {@link chromaError} maps them the same way, so callers see the
 * same errors (a 404 is a `ChromaNotFoundError`, a dead server a `ChromaConnectionError`).
 */
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import {
  ChromaClientError,
  ChromaConnectionError,
  ChromaForbiddenError,
  ChromaNotFoundError,
  ChromaQuotaExceededError,
  ChromaRateLimitError,
  ChromaServerError,
  ChromaUnauthorizedError,
  ChromaUniqueError,
  ChromaClient,
} from 'chromadb';

/** What the Chroma client calls to send a request (its `fetch`). */
export type ChromaTransport = (input: Request) => Promise<Response>;

/** A request that gets no answer in this long fails (the headers timeout the client's own fetch had). */
const NO_ANSWER_MS = 300_000;

export interface SocketTransport {
  fetch: ChromaTransport;
  /** Closes the idle connections (a stopped store must not keep the process alive). */
  close(): void;
}

/** A transport that sends every request of a Chroma client to the server listening on `socketPath`. */
export function socketTransport(socketPath: string): SocketTransport {
  // Kept-alive connections; Node's agent unrefs the idle ones, so they never hold the process.
  const agent = new Agent({ keepAlive: true, maxSockets: 16, maxFreeSockets: 4 });
  const fetch: ChromaTransport = async (input) => {
    const url = new URL(input.url);
    const body = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
    const headers: Record<string, string> = { host: 'localhost' };
    input.headers.forEach((v, k) => {
      if (k !== 'host') headers[k] = v;
    });
    if (body) headers['content-length'] = String(body.length);
    let res: { status: number; statusText: string; headers: IncomingHttpHeaders; body: Buffer };
    try {
      res = await new Promise((resolve, reject) => {
        const req = request(
          { agent, socketPath, method: input.method, path: `${url.pathname}${url.search}`, headers },
          (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () =>
              resolve({
                status: r.statusCode ?? 502,
                statusText: r.statusMessage ?? '',
                headers: r.headers,
                body: Buffer.concat(chunks),
              }),
            );
            r.on('error', reject);
          },
        );
        req.setTimeout(NO_ANSWER_MS, () =>
          req.destroy(new Error(`Chroma gave no answer within ${NO_ANSWER_MS / 1000} s`)),
        );
        const signal = input.signal;
        if (signal.aborted) req.destroy(signal.reason as Error);
        else signal.addEventListener('abort', () => req.destroy(signal.reason as Error), { once: true });
        req.on('error', reject);
        req.end(body);
      });
    } catch (e) {
      if (input.signal.aborted) throw e; // cancelled, not a lost server: not tried again
      throw Object.assign(
        new ChromaConnectionError(`Failed to connect to Chroma (${(e as Error).message})`),
        { cause: e },
      );
    }
    const out = new Response([204, 205, 304].includes(res.status) ? null : res.body, {
      status: res.status,
      statusText: res.statusText,
      headers: Object.entries(res.headers).flatMap(([k, v]): [string, string][] =>
        v === undefined ? [] : Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v]],
      ),
    });
    if (out.ok) return out;
    throw await chromaError(input, out);
  };
  return { fetch, close: () => agent.destroy() };
}

/** The error Chroma's own client throws for a response that is not ok (its `chromaFetch`, status by status). */
export async function chromaError(input: Request, response: Response): Promise<Error> {
  const message = async (): Promise<string | undefined> => {
    try {
      const b = (await response.clone().json()) as { message?: string; error?: string };
      return b?.message || b?.error;
    } catch {
      return undefined;
    }
  };
  switch (response.status) {
    case 400:
      return new ChromaClientError(
        `Bad request to ${input.url || 'Chroma'} with status: ${(await message()) || 'Bad Request'}`,
      );
    case 401:
      return new ChromaUnauthorizedError('Unauthorized');
    case 403:
      return new ChromaForbiddenError('You do not have permission to access the requested resource.');
    case 404:
      return new ChromaNotFoundError('The requested resource could not be found');
    case 409:
      return new ChromaUniqueError('The resource already exists');
    case 422: {
      const m = await message();
      return m && /^(Quota exceeded|Billing limit exceeded)/.test(m)
        ? new ChromaQuotaExceededError(m)
        : new ChromaClientError(m || `Unprocessable Entity: ${response.statusText}`);
    }
    case 429:
      return new ChromaRateLimitError('Rate limit exceeded');
    default:
      return new ChromaServerError((await message()) || `${response.status}: ${response.statusText}`);
  }
}

/** A Chroma client whose requests all go to one server's socket, and how to close its connections. */
export interface SocketClient {
  client: ChromaClient;
  /** Closes the idle connections (a stopped store must not keep the process alive). */
  close(): void;
}

/** A Chroma client (and every collection it hands out) talking to the server listening on `socketPath`. */
export function socketClient(socketPath: string): SocketClient {
  const transport = socketTransport(socketPath);
  // Host and port only fill the URLs the client builds; the transport sends every request to the socket.
  const client = new ChromaClient({ host: 'localhost', port: 80, ssl: false });
  useTransport(client, transport.fetch);
  return { client, close: transport.close };
}

/**
 * Makes a Chroma client (and every collection it hands out, which share its request client) send its
 * requests through `transport`. The client keeps its request client in a field of its own; a version of
 * the package without it fails here, with one sentence, rather than talking to the wrong place.
 */
function useTransport(client: ChromaClient, transport: ChromaTransport): void {
  const api = (
    client as unknown as { apiClient?: { setConfig?: (c: { fetch: ChromaTransport }) => unknown } }
  ).apiClient;
  if (typeof api?.setConfig !== 'function')
    throw new Error(
      'This version of the chromadb package has no request client Mnemo can route to the embedded server.',
    );
  api.setConfig({ fetch: transport });
}
