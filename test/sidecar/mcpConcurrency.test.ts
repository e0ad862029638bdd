/**
 * Concurrency: the extension's sidecar and two `mnemo mcp` servers start together on one data folder
 * and write at once (captures through the sidecar's queue, remembers through MCP, and the same facts
 * remembered by both agents in a race). One Chroma server; every fact stored exactly once.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as P from '../../sidecar/protocol';
import { projectIdFor } from '../../sidecar/shared/project';
import { CLI, mcpEnv } from '../support/mcpAgent';
import {
  SidecarSession,
  chromaServers,
  cleanupDataDir,
  tempDataDir,
  testConfig,
} from '../support/sidecarSession';
import { FACTS } from '../fixtures/facts';

const decision = (f: string) => `We decided that ${f[0]!.toLowerCase()}${f.slice(1)}.`;

async function agent(dataDir: string, name: string, root: string): Promise<Client> {
  const client = new Client({ name, version: '1' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(root).href }] }));
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: mcpEnv(dataDir),
      stderr: 'pipe',
    }),
  );
  return client;
}

describe('MCP concurrency', () => {
  const dataDir = tempDataDir('mnemo-mcp-conc-');
  after(() => cleanupDataDir(dataDir));

  test('a sidecar and two MCP servers writing at once: one Chroma, every fact stored exactly once', async () => {
    const folder = join(dataDir, 'line-3');
    mkdirSync(join(folder, '.git'), { recursive: true });
    writeFileSync(
      join(folder, '.git', 'config'),
      '[remote "origin"]\n\turl = https://github.com/acme/line-3.git\n',
    );
    const project = projectIdFor(folder);
    const [sidecar, a, b] = await Promise.all([
      SidecarSession.start(testConfig(dataDir)),
      agent(dataDir, 'agent-a', folder),
      agent(dataDir, 'agent-b', folder),
    ]);
    try {
      assert.equal(chromaServers(dataDir).length, 1, 'all three share one Chroma server');
      const captured = FACTS.slice(0, 12).map(decision);
      const byA = FACTS.slice(12, 21).map(decision);
      const byB = FACTS.slice(21, 30).map(decision);
      const shared = [
        'The north line conveyor runs at 0.8 m/s',
        'Barcode labels use Code 128',
        'The lab freezer alarm threshold is -18 °C',
      ].map(decision);
      const remember = (c: Client, text: string) => c.callTool({ name: 'remember', arguments: { text } });
      const results = await Promise.all([
        ...[0, 3, 6, 9].map((i) =>
          sidecar.request(P.CaptureSessionRequest, {
            project_id: project,
            source_type: 'chat',
            messages: captured
              .slice(i, i + 3)
              .map((content, j) => ({ role: 'user' as const, content, id: `c${i + j}` })),
          }),
        ),
        ...byA.map((t) => remember(a, t)),
        ...byB.map((t) => remember(b, t)),
        ...shared.flatMap((t) => [remember(a, t), remember(b, t)]),
      ]);
      for (const r of results) assert.ok(!(r as { isError?: boolean }).isError, JSON.stringify(r));
      for (const r of results.slice(4))
        assert.equal(
          (r as unknown as { structuredContent: { project_id: string } }).structuredContent.project_id,
          project,
          'written to the project of the roots',
        );
      assert.equal((await sidecar.request(P.FlushQueueRequest, { timeout_ms: 120_000 })).remaining, 0);
      const list = await sidecar.request(P.ListRequest, { project_id: project, limit: 1000 });
      for (const t of [...captured, ...byA, ...byB, ...shared]) {
        const key = t.slice(16, 60);
        const outcomes = results
          .map((r) => (r as { structuredContent?: { outcome?: string; reason?: string } }).structuredContent)
          .filter((c) => c?.outcome && c.outcome !== 'pending');
        assert.equal(
          list.items.filter((m) => m.text.includes(key)).length,
          1,
          `exactly once: ${t} (other outcomes: ${JSON.stringify(outcomes)})`,
        );
      }
      assert.equal(list.total, captured.length + byA.length + byB.length + shared.length);
      assert.equal(
        list.items.filter((m) => m.status === 'pending').length,
        byA.length + byB.length + shared.length,
        'what agents remembered waits for review',
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
      await sidecar.stop();
    }
  });
});
