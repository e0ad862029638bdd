import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { installPort } from '../../sidecar/agents/http';
import {
  CLI_JS,
  TEST_MODEL,
  cleanupDataDir,
  tempDataDir,
  testModelPath,
  waitFor,
} from '../support/sidecarSession';
import { chromaServers, cli, killChromaServers, terminate } from './support';

// Issue 39, item 13: `mnemo mcp --http` never exited after a listen error (its Chroma kept running); a user
// who took the fixed default port first received clients' bearer tokens; sessions never expired (3,000
// initializes: 97 → 521 MB); Origin was not checked.
const dataDir = tempDataDir('mnemo-rel-mcphttp-');
const children: ChildProcess[] = [];
after(async () => {
  await Promise.all(children.map((c) => terminate(c, 'SIGKILL')));
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

/** A process listening on 127.0.0.1:port (as `uid` when given), until killed. */
async function squat(port: number, uid?: number): Promise<ChildProcess> {
  const p = spawn(
    process.execPath,
    ['-e', `require('net').createServer(()=>{}).listen(${port},'127.0.0.1',()=>console.log('up'))`],
    { stdio: ['ignore', 'pipe', 'inherit'], ...(uid !== undefined ? { uid, gid: uid } : {}) },
  );
  children.push(p);
  await new Promise<void>((resolve, reject) => {
    p.stdout!.once('data', () => resolve());
    p.once('exit', (code) => reject(new Error(`the squatter exited (${code})`)));
  });
  return p;
}

test(
  'a port that is taken: one sentence, the exit, and no Chroma left running',
  { timeout: 3 * 60_000 },
  async () => {
    const busy = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => busy.once('listening', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = await cli(dataDir, ['mcp', '--http', '--port', String(port)], { boundMs: 90_000 });
      assert.equal(r.hung, false, 'it exits');
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        new RegExp(`127\\.0\\.0\\.1:${port} is already taken by another program of yours`),
      );
      await waitFor('no Chroma server left', () => chromaServers(dataDir).length === 0, 20_000);
    } finally {
      busy.close();
    }
  },
);

test(
  'the port is the install’s own; another user on it gets refused, and the token is replaced',
  { timeout: 3 * 60_000, skip: process.getuid?.() === 0 ? false : 'needs root to listen as another user' },
  async () => {
    const port = installPort(dataDir);
    assert.notEqual(port, 7437, 'not a port every local user knows');
    assert.equal(installPort(dataDir), port, 'the same one every time');
    const before = readFileSync(join(dataDir, 'mcp', 'token'), 'utf8').trim();
    const squatter = await squat(port, 65534);
    try {
      const r = await cli(dataDir, ['mcp', '--http'], { boundMs: 90_000 });
      assert.equal(r.hung, false);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /already taken by another user \(uid 65534\)/);
      assert.match(r.stderr, /the token was replaced/);
      assert.notEqual(readFileSync(join(dataDir, 'mcp', 'token'), 'utf8').trim(), before);
    } finally {
      squatter.kill('SIGKILL');
    }
  },
);

test(
  'web pages are refused; sessions beyond the cap are closed, oldest first',
  { timeout: 3 * 60_000 },
  async () => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith('MNEMO_')) env[k] = v;
    const proc = spawn(process.execPath, [CLI_JS, 'mcp', '--http', '--port', '0'], {
      env: {
        ...env,
        MNEMO_DATA_DIR: dataDir,
        MNEMO_EMBEDDING_MODEL: TEST_MODEL,
        MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(proc);
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await waitFor('the URL', () => /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1]);
    const token = readFileSync(join(dataDir, 'mcp', 'token'), 'utf8').trim();
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const init = (n: number) => ({
      jsonrpc: '2.0',
      id: n,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: `agent-${n}`, version: '1' },
      },
    });
    const page = await post(init(0), { origin: 'http://evil.example' });
    assert.equal(page.status, 403);
    assert.match(((await page.json()) as { error: { message: string } }).error.message, /web pages/);

    const ids: string[] = [];
    for (let i = 1; i <= 70; i++) {
      const r = await post(init(i));
      assert.equal(r.status, 200);
      ids.push(r.headers.get('mcp-session-id')!);
      await r.body?.cancel();
    }
    const list = (sid: string) =>
      post(
        { jsonrpc: '2.0', id: 99, method: 'tools/list' },
        { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
      );
    const oldest = await list(ids[0]!);
    assert.equal(oldest.status, 404, 'the oldest session was closed');
    const newest = await list(ids[69]!);
    assert.equal(newest.status, 200, 'the newest still works');
    await newest.body?.cancel();
    await terminate(proc);
  },
);
