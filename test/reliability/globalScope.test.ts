import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { projectIdFor } from '../../sidecar/shared/project';
import {
  CLI_JS,
  TEST_MODEL,
  cleanupDataDir,
  inProcessService,
  tempDataDir,
  testModelPath,
} from '../support/sidecarSession';
import { cli, killChromaServers } from './support';

// Issue 39, item 6: new ways into global and across projects. A root folder whose git remote is `global`
// mapped to the global project; `mnemo mcp --project global` and `import-rules --project global` wrote
// there as confirmed; an empty roots list silently used the working folder's project.
const dataDir = tempDataDir('mnemo-rel-global-');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

/** A repository whose origin is literally `global`. */
const repo = join(dataDir, 'work', 'tools');
mkdirSync(join(repo, '.git'), { recursive: true });
writeFileSync(join(repo, '.git', 'config'), '[remote "origin"]\n\turl = global\n');
writeFileSync(
  join(repo, 'AGENTS.md'),
  '# Rules\n\n- Always run the linter with --max-warnings=0 before a commit.\n',
);

async function globalMemories(): Promise<string[]> {
  const svc = inProcessService(dataDir);
  try {
    await svc.start();
    return (await svc.store.find({ project_id: 'global' })).map((r) => r.memory.text);
  } finally {
    await svc.dispose();
  }
}

/** An MCP client over stdio on `mnemo mcp`, with these roots (the roots capability declared). */
async function agent(roots: { uri: string }[]): Promise<Client> {
  const client = new Client({ name: 'audit-agent', version: '1.0.0' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('MNEMO_')) env[k] = v;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI_JS, 'mcp'],
      env: {
        ...env,
        MNEMO_DATA_DIR: dataDir,
        MNEMO_EMBEDDING_MODEL: TEST_MODEL,
        MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
      },
      cwd: repo,
      stderr: 'pipe',
    }),
  );
  return client;
}

const textOf = (r: unknown): string => {
  const c = (r as CallToolResult).content?.[0];
  return c && c.type === 'text' ? c.text : '';
};

test('the command line never writes into global', { timeout: 3 * 60_000 }, async () => {
  const refused = /Memories reach the global project only by promotion/;
  for (const run of [
    cli(dataDir, ['mcp', '--project', 'global']),
    cli(dataDir, ['mcp'], { env: { MNEMO_PROJECT: 'Global' } }),
    cli(dataDir, ['import-rules', '--project', 'global', join(repo, 'AGENTS.md')]),
  ]) {
    const r = await run;
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, refused);
  }
  assert.deepEqual(await globalMemories(), []);
});

test(
  'an MCP root whose git remote is "global" is a project of its own',
  { timeout: 3 * 60_000 },
  async () => {
    assert.notEqual(projectIdFor(repo), 'global');
    const client = await agent([{ uri: pathToFileURL(repo).href }]);
    try {
      const r = await client.callTool({
        name: 'remember',
        arguments: { text: 'The tools repository releases every Friday at 15:00.' },
      });
      assert.ok(!r.isError, textOf(r));
      assert.match(textOf(r), new RegExp(projectIdFor(repo).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    } finally {
      await client.close();
    }
    assert.deepEqual(await globalMemories(), []);
  },
);

test('an empty roots list is an error, not the working folder', { timeout: 3 * 60_000 }, async () => {
  const client = await agent([]);
  try {
    const r = await client.callTool({ name: 'remember', arguments: { text: 'Deploys need two approvals.' } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /lists no workspace folder/);
    const gone = await client.callTool({ name: 'recall', arguments: { query: 'how many approvals' } });
    assert.equal(gone.isError, true);
  } finally {
    await client.close();
  }
});
