/**
 * `mnemo mcp` with real clients: the SDK's own Client over stdio and streamable HTTP, and a client we did
 * not write (the MCP Inspector's CLI mode). Real CLI process, real Chroma, real model; the extension's
 * sidecar on the same data folder plays the person in VS Code (confirming what an agent remembered).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as P from '../../sidecar/protocol';
import { projectIdFor } from '../../sidecar/shared/project';
import { CLI, mcpEnv, projectFolder, stdioAgent, toolText } from '../support/mcpAgent';
import {
  REPO,
  SidecarSession,
  cleanupDataDir,
  tempDataDir,
  testConfig,
  waitFor,
} from '../support/sidecarSession';

const INSPECTOR = join(REPO, 'node_modules', '@modelcontextprotocol', 'inspector', 'cli', 'build', 'cli.js');

const text = toolText;

describe('mnemo mcp', () => {
  const dataDir = tempDataDir('mnemo-mcp-');
  const folderA = projectFolder(dataDir, 'plc-gateway');
  const folderB = projectFolder(dataDir, 'billing');
  const projectA = projectIdFor(folderA);
  const projectB = projectIdFor(folderB);
  let sidecar: SidecarSession;

  before(async () => {
    sidecar = await SidecarSession.start(testConfig(dataDir));
  });
  after(async () => {
    await sidecar?.stop();
    cleanupDataDir(dataDir);
  });

  test('stdio: tools listed with schemas; remember → review → recall round-trip with provenance; audited; stdout only MCP', async () => {
    const agent = await stdioAgent(dataDir, { name: 'claude-code', root: folderA });
    try {
      const { tools } = await agent.client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [
        'get',
        'mark_wrong',
        'recall',
        'remember',
        'report',
        'search',
      ]);
      for (const t of tools) {
        assert.ok((t.description ?? '').length > 60, `${t.name} has a real description`);
        assert.equal(t.inputSchema.type, 'object');
      }
      const recallTool = tools.find((t) => t.name === 'recall')!;
      assert.deepEqual(recallTool.inputSchema.required, ['query']);
      assert.ok(recallTool.outputSchema, 'recall declares its structured output');

      const fact = 'We decided the PLC gateway polls Modbus every 250 ms.';
      const r = await agent.client.callTool({
        name: 'remember',
        arguments: { text: fact, category: 'instruction', why: 'the line controller drops slower polls' },
      });
      assert.ok(!r.isError, text(r));
      const d = r.structuredContent as { outcome: string; id: string; project_id: string };
      assert.equal(d.outcome, 'pending', 'an agent is not a person: its memory waits for review');
      assert.equal(d.project_id, projectA, 'written to the project of the client root');

      // The extension is told (its views refresh) and sees it in the review queue; the person confirms it there.
      await waitFor('the sidecar to announce the memory an MCP server stored', () =>
        sidecar.changes.some((c) => c.project_ids.includes(projectA) && c.ids?.includes(d.id)),
      );
      const pending = await sidecar.request(P.ListRequest, { project_id: projectA, status: ['pending'] });
      const m = pending.items.find((x) => x.id === d.id);
      assert.ok(m, 'the remembered memory is in the review queue the VS Code tree shows');
      assert.match(m.text, /250 ms\. \(why: the line controller drops slower polls\)$/);
      assert.equal(m.added_by, 'agent:claude-code@1.0.0');
      await sidecar.request(P.ConfirmRequest, { id: d.id, by: 'alice@laptop' });

      const rec = await agent.client.callTool({
        name: 'recall',
        arguments: { query: 'How often does the gateway poll Modbus?', top_k: 3 },
      });
      assert.ok(!rec.isError, text(rec));
      assert.match(text(rec), /250 ms/, 'the injection block holds the memory');
      const out = rec.structuredContent as {
        items: { id: string; source_ref: string[]; confirmed_by?: string; added_by: string }[];
        project_ids: string[];
      };
      assert.deepEqual(out.project_ids, [projectA]);
      const item = out.items.find((i) => i.id === d.id);
      assert.ok(item, 'the structured items hold the memory');
      assert.deepEqual(item.source_ref, ['mcp:claude-code@1.0.0']);
      assert.equal(item.confirmed_by, 'alice@laptop');

      const got = await agent.client.callTool({ name: 'get', arguments: { id: d.id } });
      const ev = got.structuredContent as { history: { action: string; by: string }[] };
      assert.deepEqual(ev.history.map((h) => h.action).sort(), ['confirm', 'create']);

      const found = await agent.client.callTool({
        name: 'search',
        arguments: { query: 'Modbus polling interval' },
      });
      assert.ok((found.structuredContent as { items: { id: string }[] }).items.some((i) => i.id === d.id));

      const res = await agent.client.listResources();
      assert.ok(res.resources.some((x) => x.uri === 'mnemo://memories'));
      assert.ok(res.resources.some((x) => x.uri === `mnemo://memory/${d.id}`));
      const doc = await agent.client.readResource({ uri: 'mnemo://memories' });
      assert.match(String((doc.contents[0] as { text: string }).text), /250 ms/);

      // Audited: which client, which tool.
      const audit = readFileSync(join(dataDir, 'audit', 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as P.AuditEntry);
      assert.ok(
        audit.some(
          (e) => e.action === 'create' && e.memory_id === d.id && e.by === 'agent:claude-code@1.0.0',
        ),
      );
      assert.ok(
        audit.some(
          (e) =>
            e.action === 'export' &&
            e.by === 'agent:claude-code@1.0.0' &&
            /MCP recall: \d+ memor/.test(e.note ?? '') &&
            e.note!.includes(d.id),
        ),
      );
      assert.ok(audit.some((e) => e.by === 'agent:claude-code@1.0.0' && /MCP search/.test(e.note ?? '')));
      assert.deepEqual(agent.errors, [], 'every byte on stdout was an MCP message');
    } finally {
      await agent.close();
    }
  });

  test('stdio: bad arguments get one clear error; hedges are refused; nothing stored', async () => {
    const agent = await stdioAgent(dataDir, { name: 'codex', root: folderA });
    try {
      const before = (await sidecar.request(P.ListRequest, {})).total;
      const bad = async (name: string, args: Record<string, unknown>): Promise<string> => {
        try {
          const r = await agent.client.callTool({ name, arguments: args });
          assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} is an error`);
          return text(r);
        } catch (e) {
          return (e as Error).message;
        }
      };
      assert.match(await bad('recall', { query: '' }), /recall needs a non-empty "query"/);
      assert.match(await bad('recall', { query: 'x', top_k: 0 }), /top_k must be at least 1/);
      assert.match(await bad('recall', { top_k: 2 }), /query/);
      assert.match(await bad('mark_wrong', { id: 'nope', reason: 'r' }), /id must be a memory id like mem_/);
      assert.match(
        await bad('get', { id: 'mem_0000000000000000' }),
        /No memory with id mem_0000000000000000/,
      );
      const hedge = await agent.client.callTool({
        name: 'remember',
        arguments: { text: 'maybe we should try yarn?' },
      });
      assert.match(text(hedge), /Not remembered: the rules drop this \(drop:question/);
      assert.equal((await sidecar.request(P.ListRequest, {})).total, before, 'nothing stored by bad input');
    } finally {
      await agent.close();
    }
  });

  test('isolation: a memory of one project is never recalled, searched or read from another', async () => {
    const a = await stdioAgent(dataDir, { name: 'cursor', root: folderA });
    const b = await stdioAgent(dataDir, { name: 'cursor', root: folderB });
    try {
      const r = await a.client.callTool({
        name: 'remember',
        arguments: { text: 'The gateway TLS certificate is rotated every 30 days.' },
      });
      const id = (r.structuredContent as { id: string }).id;
      await sidecar.request(P.ConfirmRequest, { id });
      const inA = await a.client.callTool({
        name: 'recall',
        arguments: { query: 'When is the TLS certificate rotated?' },
      });
      assert.ok((inA.structuredContent as { items: { id: string }[] }).items.some((i) => i.id === id));
      const inB = await b.client.callTool({
        name: 'recall',
        arguments: { query: 'When is the TLS certificate rotated?' },
      });
      assert.deepEqual((inB.structuredContent as { project_ids: string[] }).project_ids, [projectB]);
      assert.ok(
        !(inB.structuredContent as { items: { id: string }[] }).items.some((i) => i.id === id),
        'not recalled in the other project',
      );
      const sB = await b.client.callTool({
        name: 'search',
        arguments: { query: 'TLS certificate rotated', mode: 'keyword' },
      });
      assert.deepEqual((sB.structuredContent as { items: unknown[] }).items, []);
      const gB = await b.client.callTool({ name: 'get', arguments: { id } });
      assert.equal(gB.isError, true);
      assert.match(text(gB), new RegExp(`No memory with id ${id} in ${projectB}`));
      const wB = await b.client.callTool({ name: 'mark_wrong', arguments: { id, reason: 'not ours' } });
      assert.equal(wB.isError, true, 'another project cannot mark it wrong');
      assert.equal((await sidecar.request(P.GetRequest, { id })).status, 'confirmed');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('no roots: the working folder decides the project', async () => {
    const agent = await stdioAgent(dataDir, { name: 'copilot-cli', cwd: folderB });
    try {
      const r = await agent.client.callTool({
        name: 'remember',
        arguments: { text: 'Invoices are generated on the first working day of the month.' },
      });
      assert.equal((r.structuredContent as { project_id: string }).project_id, projectB);
    } finally {
      await agent.close();
    }
  });

  test('HTTP: bearer token required (missing or wrong: 401); SDK client lists tools and recalls', async () => {
    const proc = spawn(process.execPath, [CLI, 'mcp', '--http', '--port', '0'], {
      env: mcpEnv(dataDir),
      cwd: folderA,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const url = await waitFor(
        'the HTTP URL on stderr',
        () => /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1],
      );
      const tokenPath = join(dataDir, 'mcp', 'token');
      assert.match(stderr, /Authorization: Bearer/);
      assert.ok(stderr.includes(tokenPath), 'says where the token is');
      assert.equal(statSync(tokenPath).mode & 0o777, 0o600);
      const token = readFileSync(tokenPath, 'utf8').trim();
      assert.ok(!stderr.includes(token), 'the token itself is not printed');

      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'curl', version: '1' },
        },
      };
      const post = (headers: Record<string, string>) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify(init),
        });
      const none = await post({});
      assert.equal(none.status, 401);
      assert.match(((await none.json()) as { error: { message: string } }).error.message, /bearer token/);
      assert.equal((await post({ authorization: 'Bearer not-the-token' })).status, 401);

      const refused = new Client({ name: 'no-token', version: '1' });
      await assert.rejects(refused.connect(new StreamableHTTPClientTransport(new URL(url))));

      const client = new Client({ name: 'windsurf', version: '2.0' }, { capabilities: { roots: {} } });
      client.setRequestHandler(ListRootsRequestSchema, () => ({
        roots: [{ uri: pathToFileURL(folderA).href }],
      }));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      try {
        const { tools } = await client.listTools();
        assert.equal(tools.length, 6);
        const rec = await client.callTool({
          name: 'recall',
          arguments: { query: 'How often does the gateway poll Modbus?' },
        });
        assert.match(text(rec), /250 ms/);
        const rem = await client.callTool({
          name: 'remember',
          arguments: { text: 'Firmware images are signed with the release key before upload.' },
        });
        assert.equal((rem.structuredContent as { outcome: string; project_id: string }).project_id, projectA);
      } finally {
        await client.close();
      }
    } finally {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    }
  });

  test('MCP Inspector CLI (a client we did not write): tools/list and tools/call recall', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, [INSPECTOR, '--cli', process.execPath, CLI, 'mcp', ...args], {
          env: mcpEnv(dataDir),
          cwd: folderA,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        p.once('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const list = await run(['--method', 'tools/list']);
    assert.equal(list.code, 0, list.stderr);
    const names = (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['get', 'mark_wrong', 'recall', 'remember', 'report', 'search']);
    const call = await run([
      '--method',
      'tools/call',
      '--tool-name',
      'recall',
      '--tool-arg',
      'query=How often does the gateway poll Modbus?',
    ]);
    assert.equal(call.code, 0, call.stderr);
    const result = JSON.parse(call.stdout) as CallToolResult;
    assert.ok(!result.isError);
    assert.match(text(result), /250 ms/);
  });
});
