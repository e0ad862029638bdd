/**
 * The Ollama and OpenAI-compatible providers against real HTTP servers on 127.0.0.1 that speak
 * their protocols, including error answers and a server that never answers.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import {
  EmbeddingUnavailableError,
  OllamaEmbeddingProvider,
  OpenAIEmbeddingProvider,
  createEmbeddingProvider,
} from '../../sidecar/embed/index';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}
type Handler = (seen: Seen, res: http.ServerResponse) => void;

/** Starts a server whose behaviour can be swapped per test; records every request. */
async function startServer(): Promise<{
  url: string;
  seen: Seen[];
  handle: (h: Handler) => void;
  close: () => Promise<void>;
}> {
  const seen: Seen[] = [];
  let handler: Handler = (_s, res) => res.writeHead(500).end();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    handle: (h) => (handler = h),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A deterministic, deliberately unnormalized vector per text: [len, 2*len, 2]. */
const rawVector = (t: string): number[] => [t.length, 2 * t.length, 2];
const norm = (v: number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

async function rejectsUnavailable(p: Promise<unknown>, ...patterns: RegExp[]): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(
      err instanceof EmbeddingUnavailableError,
      `expected EmbeddingUnavailableError, got ${String(err)}`,
    );
    for (const re of patterns) assert.match(err.message, re);
    assert.doesNotMatch(err.message, /\n/);
    return true;
  });
}

void describe('ollama provider', async () => {
  const srv = await startServer();
  after(() => srv.close());

  void test('POST /api/embed, normalized vectors in order, batched, dimension from the probe', async () => {
    srv.handle((s, res) => {
      if (s.url !== '/api/embed' || s.method !== 'POST') return json(res, 404, { error: 'wrong endpoint' });
      json(res, 200, { model: s.body['model'], embeddings: (s.body['input'] as string[]).map(rawVector) });
    });
    srv.seen.length = 0;
    const p = createEmbeddingProvider({
      provider: 'ollama',
      baseUrl: `${srv.url}/`,
      model: 'bge-m3',
      batchSize: 2,
    });
    assert.equal(p.modelId, 'ollama:bge-m3');
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const vs = await p.embed(texts);
    assert.equal(p.dimension(), 3);
    assert.equal(vs.length, 5);
    for (const [i, v] of vs.entries()) {
      assert.ok(Math.abs(norm(v) - 1) < 1e-9);
      const r = rawVector(texts[i]!);
      assert.ok(Math.abs(v[0]! - r[0]! / norm(r)) < 1e-9, `vector ${i} is out of order`);
    }
    // probe + ceil(5 / 2) batches
    assert.equal(srv.seen.length, 4);
    assert.deepEqual(srv.seen[1]!.body, { model: 'bge-m3', input: ['a', 'bb'], truncate: true });
    await p.dispose();
  });

  void test('a model that is not pulled says how to pull it', async () => {
    srv.handle((_s, res) =>
      json(res, 404, { error: 'model "nomic-embed-text" not found, try pulling it first' }),
    );
    const p = new OllamaEmbeddingProvider({ baseUrl: srv.url, model: 'nomic-embed-text' });
    await rejectsUnavailable(p.ready(), /ollama pull nomic-embed-text/);
  });

  void test('HTTP 500 gives the status and the server message', async () => {
    srv.handle((_s, res) => json(res, 500, { error: 'llama runner process has terminated' }));
    const p = new OllamaEmbeddingProvider({ baseUrl: srv.url });
    await rejectsUnavailable(
      p.embed(['x']),
      /Ollama answered HTTP 500/,
      /llama runner process has terminated/,
    );
  });

  void test('a server that never answers times out', async () => {
    srv.handle(() => {}); // hold the request open
    const p = new OllamaEmbeddingProvider({ baseUrl: srv.url, timeoutMs: 200 });
    const t0 = Date.now();
    await rejectsUnavailable(p.ready(), /did not answer within 200 ms/, /mnemo\.embedding\.timeoutMs/);
    assert.ok(Date.now() - t0 < 5000);
  });

  void test('nothing listening: connection refused', async () => {
    const closed = await startServer();
    const url = closed.url;
    await closed.close();
    const p = new OllamaEmbeddingProvider({ baseUrl: url, timeoutMs: 2000 });
    await rejectsUnavailable(p.ready(), /Could not reach Ollama/, /ECONNREFUSED/);
  });

  void test('a wrong answer shape is reported', async () => {
    srv.handle((_s, res) => json(res, 200, { embedding: [1, 2, 3] }));
    const p = new OllamaEmbeddingProvider({ baseUrl: srv.url });
    await rejectsUnavailable(p.ready(), /returned no vectors for 1 texts/);
  });
});

void describe('openai-compatible provider', async () => {
  const srv = await startServer();
  after(() => srv.close());
  const okHandler: Handler = (s, res) => {
    if (s.url !== '/v1/embeddings' || s.method !== 'POST')
      return json(res, 404, { error: { message: 'no route' } });
    if (s.headers['authorization'] !== 'Bearer test-key')
      return json(res, 401, { error: { message: 'Incorrect API key provided' } });
    const input = s.body['input'] as string[];
    // Answer in reverse order: the provider must sort by index.
    const data = input.map((t, index) => ({ object: 'embedding', index, embedding: rawVector(t) })).reverse();
    json(res, 200, {
      object: 'list',
      data,
      model: s.body['model'],
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
  };

  void test('POST {baseUrl}/embeddings with the key, ordered by index, normalized, batched', async () => {
    srv.handle(okHandler);
    srv.seen.length = 0;
    const p = new OpenAIEmbeddingProvider({
      baseUrl: `${srv.url}/v1`,
      apiKey: 'test-key',
      model: 'text-embedding-3-small',
      batchSize: 3,
      dimensions: 3,
    });
    assert.equal(p.modelId, 'openai:text-embedding-3-small:3');
    const texts = ['a', 'bb', 'ccc', 'dddd'];
    const vs = await p.embed(texts);
    assert.equal(p.dimension(), 3);
    for (const [i, v] of vs.entries()) {
      const r = rawVector(texts[i]!);
      assert.ok(Math.abs(v[1]! - r[1]! / norm(r)) < 1e-9, `vector ${i} is out of order`);
      assert.ok(Math.abs(norm(v) - 1) < 1e-9);
    }
    assert.equal(srv.seen.length, 3); // probe + 2 batches
    assert.deepEqual(srv.seen[1]!.body, {
      model: 'text-embedding-3-small',
      input: ['a', 'bb', 'ccc'],
      encoding_format: 'float',
      dimensions: 3,
    });
  });

  void test('the key comes from OPENAI_API_KEY when not configured', async () => {
    srv.handle(okHandler);
    const saved = { m: process.env['MNEMO_EMBEDDING_API_KEY'], o: process.env['OPENAI_API_KEY'] };
    delete process.env['MNEMO_EMBEDDING_API_KEY'];
    process.env['OPENAI_API_KEY'] = 'test-key';
    try {
      const p = createEmbeddingProvider({ provider: 'openai', baseUrl: `${srv.url}/v1` });
      assert.equal((await p.embed(['hello'])).length, 1);
    } finally {
      if (saved.o === undefined) delete process.env['OPENAI_API_KEY'];
      else process.env['OPENAI_API_KEY'] = saved.o;
      if (saved.m !== undefined) process.env['MNEMO_EMBEDDING_API_KEY'] = saved.m;
    }
  });

  void test('a refused key says which setting to fix', async () => {
    srv.handle(okHandler);
    const p = new OpenAIEmbeddingProvider({ baseUrl: `${srv.url}/v1`, apiKey: 'wrong' });
    await rejectsUnavailable(p.ready(), /refused the API key \(HTTP 401\)/, /mnemo\.embedding\.apiKey/);
  });

  void test('api.openai.com without any key fails before any request', async () => {
    const saved = { m: process.env['MNEMO_EMBEDDING_API_KEY'], o: process.env['OPENAI_API_KEY'] };
    delete process.env['MNEMO_EMBEDDING_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
    try {
      const p = new OpenAIEmbeddingProvider();
      await rejectsUnavailable(p.ready(), /No API key/, /OPENAI_API_KEY/);
    } finally {
      if (saved.o !== undefined) process.env['OPENAI_API_KEY'] = saved.o;
      if (saved.m !== undefined) process.env['MNEMO_EMBEDDING_API_KEY'] = saved.m;
    }
  });

  void test('HTTP 500 gives the status and the server message', async () => {
    srv.handle((_s, res) =>
      json(res, 500, { error: { message: 'The server had an error while processing your request.' } }),
    );
    const p = new OpenAIEmbeddingProvider({ baseUrl: `${srv.url}/v1`, apiKey: 'test-key' });
    await rejectsUnavailable(p.embed(['x']), /answered HTTP 500/, /had an error while processing/);
  });

  void test('a server that never answers times out', async () => {
    srv.handle(() => {});
    const p = new OpenAIEmbeddingProvider({ baseUrl: `${srv.url}/v1`, apiKey: 'test-key', timeoutMs: 200 });
    await rejectsUnavailable(p.ready(), /did not answer within 200 ms/);
  });

  void test('an answer without data is reported', async () => {
    srv.handle((_s, res) => json(res, 200, { object: 'list' }));
    const p = new OpenAIEmbeddingProvider({ baseUrl: `${srv.url}/v1`, apiKey: 'test-key' });
    await rejectsUnavailable(p.ready(), /without a "data" list/);
  });
});

void describe('factory', () => {
  void test('defaults to the local provider with the multilingual model', () => {
    const saved = process.env['MNEMO_EMBEDDING_MODEL_PATH'];
    delete process.env['MNEMO_EMBEDDING_MODEL_PATH'];
    try {
      assert.equal(createEmbeddingProvider().modelId, 'local:Xenova/paraphrase-multilingual-MiniLM-L12-v2');
    } finally {
      if (saved !== undefined) process.env['MNEMO_EMBEDDING_MODEL_PATH'] = saved;
    }
  });

  void test('an unknown provider is a clear error', () => {
    assert.throws(
      () => createEmbeddingProvider({ provider: 'cohere' as never }),
      (err: unknown) =>
        err instanceof EmbeddingUnavailableError && /local, ollama or openai/.test(err.message),
    );
  });
});
