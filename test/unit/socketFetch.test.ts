import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { socketClient, socketTransport, type SocketTransport } from '../../sidecar/store/socketFetch';

// The sidecar's transport to the embedded Chroma's Unix socket: the client's requests arrive there intact,
// and every answer that is not ok becomes the error Chroma's own client throws (the store's retry and
// fallback logic keys on those: a connection error reconnects, "Error finding id" falls back).

let dir: string;
let server: Server;
let socket: string;
let transport: SocketTransport;
const seen: { method: string; url: string; body: string; host: string }[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mnemo-sockfetch-'));
  socket = join(dir, 's.sock');
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body, host: req.headers.host ?? '' });
      const json = (status: number, x: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(x));
      };
      if (req.url === '/api/v2/heartbeat') return json(200, { 'nanosecond heartbeat': 42 });
      if (req.url!.includes('/missing')) return json(404, { error: 'NotFound' });
      if (req.url!.includes('/bad')) return json(400, { message: 'Error finding id ep_1' });
      if (req.url!.includes('/cut')) return req.socket.destroy();
      return json(500, { message: 'the disk is full' });
    });
  });
  await new Promise<void>((r) => server.listen(socket, r));
  transport = socketTransport(socket);
});

after(async () => {
  transport.close();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string) =>
  transport.fetch(
    new Request(`http://localhost/api/v2${path}`, {
      method: 'POST',
      body: '{"ids":["a"]}',
      headers: { 'content-type': 'application/json' },
    }),
  );

test("Chroma's own client, given the transport, reaches the server behind the socket", async () => {
  const { client, close } = socketClient(socket);
  try {
    assert.equal(await client.heartbeat(), 42);
  } finally {
    close();
  }
  assert.deepEqual(seen.at(-1), { method: 'GET', url: '/api/v2/heartbeat', body: '', host: 'localhost' });
});

test('a request body and its query string arrive as sent', async () => {
  await assert.rejects(() => post('/collections/x/query?limit=3'));
  assert.deepEqual(seen.at(-1), {
    method: 'POST',
    url: '/api/v2/collections/x/query?limit=3',
    body: '{"ids":["a"]}',
    host: 'localhost',
  });
});

test("answers that are not ok become Chroma's errors, with the server's message", async () => {
  await assert.rejects(() => post('/missing'), { name: 'ChromaNotFoundError' });
  await assert.rejects(() => post('/bad'), { name: 'ChromaClientError', message: /Error finding id ep_1/ });
  await assert.rejects(() => post('/other'), { name: 'ChromaServerError', message: 'the disk is full' });
});

test('a server that is gone, or cuts the answer off, is a connection error (the store reconnects on it)', async () => {
  await assert.rejects(() => post('/cut'), { name: 'ChromaConnectionError' });
  const gone = socketTransport(join(dir, 'nobody-listens.sock'));
  try {
    await assert.rejects(
      () => gone.fetch(new Request('http://localhost/api/v2/heartbeat')),
      (e: Error) => e.name === 'ChromaConnectionError' && /ENOENT/.test(e.message),
    );
  } finally {
    gone.close();
  }
});

test('an aborted request stops with its reason, not as a lost server (which would be tried again)', async () => {
  const ac = new AbortController();
  ac.abort(new Error('cancelled by the user'));
  await assert.rejects(
    () => transport.fetch(new Request('http://localhost/api/v2/heartbeat', { signal: ac.signal })),
    (e: Error) => e.name !== 'ChromaConnectionError' && /cancelled by the user/.test(e.message),
  );
});
