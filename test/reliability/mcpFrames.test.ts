import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, test } from 'node:test';
import {
  CLI_JS,
  TEST_MODEL,
  cleanupDataDir,
  tempDataDir,
  testModelPath,
  waitFor,
} from '../support/sidecarSession';
import { killChromaServers, terminate } from './support';

// Issue 39, item 14: an 11 MB stdio frame stopped `mnemo mcp` (the SDK's transport closed on its buffer
// limit, and the server with it). The frame is refused with an error for its id; the server goes on.
const dataDir = tempDataDir('mnemo-rel-frames-');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

test(
  'an 11 MB message on stdio is refused on its own; the next one is answered',
  { timeout: 3 * 60_000 },
  async () => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith('MNEMO_')) env[k] = v;
    const p = spawn(process.execPath, [CLI_JS, 'mcp'], {
      env: {
        ...env,
        MNEMO_DATA_DIR: dataDir,
        MNEMO_EMBEDDING_MODEL: TEST_MODEL,
        MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const answers = new Map<number, { result?: unknown; error?: { message: string } }>();
    let buf = '';
    p.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, nl)) as {
          id?: number;
          result?: unknown;
          error?: { message: string };
        };
        buf = buf.slice(nl + 1);
        if (typeof m.id === 'number') answers.set(m.id, m);
      }
    });
    const send = (m: unknown) => p.stdin!.write(JSON.stringify(m) + '\n');
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'big', version: '1' },
        },
      });
      await waitFor('initialized', () => answers.get(1));
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'recall', arguments: { query: 'x'.repeat(11 * 1024 * 1024) } },
      });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      const refused = await waitFor('the big one refused', () => answers.get(2));
      assert.match(refused.error?.message ?? '', /larger than 4 MiB .* was refused/);
      const listed = await waitFor('the next one answered', () => answers.get(3));
      assert.ok((listed.result as { tools: unknown[] }).tools.length >= 5);
      assert.equal(p.exitCode, null, 'still running');
      const stop = await terminate(p);
      assert.deepEqual(stop, { code: 0, signal: null, killed: false }, 'SIGTERM stops the server cleanly');
    } finally {
      await terminate(p, 'SIGKILL');
    }
  },
);
