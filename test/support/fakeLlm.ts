/**
 * A real HTTP server on 127.0.0.1 (port 0) that speaks the OpenAI chat-completions protocol, for the
 * LLM tests. Each test swaps in the behaviour it needs (answer, delay, status, never answer) and
 * inspects every request the server received.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as it came over the wire. */
  raw: string;
  body: {
    model?: string;
    temperature?: number;
    max_tokens?: number;
    messages?: { role: string; content: string }[];
    [k: string]: unknown;
  };
}

export type FakeHandler = (req: SeenRequest, res: http.ServerResponse, n: number) => void;

export interface FakeLlmServer {
  /** Base URL including /v1, e.g. http://127.0.0.1:41234/v1. */
  baseUrl: string;
  seen: SeenRequest[];
  handle(h: FakeHandler): void;
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlmServer> {
  const seen: SeenRequest[] = [];
  let handler: FakeHandler = (_r, res) => res.writeHead(500).end();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      let body: SeenRequest['body'] = {};
      try {
        body = raw ? (JSON.parse(raw) as SeenRequest['body']) : {};
      } catch {
        body = {};
      }
      const s: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        raw,
        body,
      };
      seen.push(s);
      handler(s, res, seen.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    seen,
    handle: (h) => (handler = h),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A chat-completions answer with `content` and usage. */
export function completion(content: string, usage = { prompt_tokens: 321, completion_tokens: 45 }): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A port on 127.0.0.1 with nothing listening (bound, then released). */
export async function deadPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** One sentence: ends with a period and no sentence boundary inside. */
export function isOneSentence(msg: string): boolean {
  return /[.?]$/.test(msg) && !/[.!?]\s+[A-Z]/.test(msg.slice(0, -1)) && !msg.includes('\n');
}
