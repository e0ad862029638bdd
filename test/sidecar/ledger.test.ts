/**
 * The ledger of what agents were shown, end to end: a real MCP client (the SDK's) on `mnemo mcp`, the
 * CLI, and the extension's sidecar on one data folder. A recall is recorded with the client's name and
 * version and its query redacted; `mnemo ledger` and `mnemo show` print it; an agent's report feeds the
 * memory's confidence (never deciding for a person); deleting a memory and wiping a project erase it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as P from '../../sidecar/protocol';
import { projectIdFor } from '../../sidecar/shared/project';
import { CLI, mcpEnv, projectFolder, stdioAgent, toolText, type Agent } from '../support/mcpAgent';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig, waitFor } from '../support/sidecarSession';

/** A GitHub token pattern that must never reach the ledger's files. */
const TOKEN = 'ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVc';

function ledgerBytes(dataDir: string): string {
  const dir = join(dataDir, 'ledger');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('');
}

describe('the ledger of what agents were shown', () => {
  const dataDir = tempDataDir('mnemo-ledger-');
  const folder = projectFolder(dataDir, 'plc-gateway');
  const project = projectIdFor(folder);
  let sidecar: SidecarSession;
  let agent: Agent;
  let confirmedId: string;
  let activeId: string;

  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, ...args], {
      cwd: folder,
      env: mcpEnv(dataDir),
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(r.status, 0, `mnemo ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await agent.client.callTool({ name, arguments: args })) as CallToolResult;
    assert.ok(!r.isError, `${name}: ${toolText(r)}`);
    return r;
  };

  before(async () => {
    sidecar = await SidecarSession.start(testConfig(dataDir));
    const remember = async (text: string) => {
      const d = await sidecar.request(P.RememberRequest, {
        text,
        project_id: project,
        source_type: 'manual',
      });
      assert.ok(d.id, JSON.stringify(d));
      return d.id;
    };
    confirmedId = await remember('We decided the PLC gateway polls Modbus every 250 ms.');
    activeId = await remember('The gateway firmware images are signed with the release key before upload.');
    // Learned, not vouched for: what a pipeline stores (a person's remember is confirmed).
    await sidecar.request(P.UpdateRequest, {
      id: activeId,
      patch: { status: 'active', confidence_score: 0.8 },
    });
    agent = await stdioAgent(dataDir, { name: 'claude-code', version: '1.0.3', root: folder });
  });
  after(async () => {
    await agent?.close();
    await sidecar?.stop();
    cleanupDataDir(dataDir);
  });

  test("an MCP recall is recorded with the client's name and version, its query redacted; search and get too", async () => {
    const changes = sidecar.ledgerChanges;
    const rec = await call('recall', { query: `How often does the gateway poll Modbus? (token ${TOKEN})` });
    const served = rec.structuredContent as { tokens: number; items: { id: string }[] };
    assert.ok(
      served.items.some((i) => i.id === confirmedId),
      toolText(rec),
    );

    const { entries } = await sidecar.request(P.LedgerListRequest, {
      client: 'claude-code',
      with_text: true,
    });
    const entry = entries.find((e) => e.served_to.tool === 'recall');
    assert.ok(entry, JSON.stringify(entries));
    assert.deepEqual(entry.served_to, {
      surface: 'mcp',
      name: 'claude-code',
      version: '1.0.3',
      tool: 'recall',
    });
    assert.deepEqual(entry.project_ids, [project]);
    assert.equal(entry.tokens, served.tokens, 'the tokens of the block the agent got');
    assert.match(
      entry.query,
      /^How often does the gateway poll Modbus\? \(token \[REDACTED:github-token\]\)$/,
    );
    const item = entry.items.find((i) => i.id === confirmedId);
    assert.deepEqual(
      { kind: item?.kind, project: item?.project_id, text: item?.text, status: item?.status },
      {
        kind: 'memory',
        project,
        text: 'We decided the PLC gateway polls Modbus every 250 ms.',
        status: 'confirmed',
      },
    );
    assert.ok(item!.score > 0 && item!.score <= 1);
    assert.ok(!ledgerBytes(dataDir).includes(TOKEN), 'the secret never reached the ledger');
    await waitFor('the sidecar to announce the ledger changed', () => sidecar.ledgerChanges > changes);

    await call('search', { query: 'Modbus polling interval' });
    await call('get', { id: confirmedId });
    const tools = (
      await sidecar.request(P.LedgerListRequest, { client: 'claude-code', limit: 2 })
    ).entries.map((e) => `${e.served_to.tool} ${e.items.map((i) => i.id).includes(confirmedId)}`);
    assert.deepEqual(tools, ['get true', 'search true']);
  });

  test('a CLI recall is recorded as cli; mnemo ledger prints it; mnemo show says when and to whom', () => {
    cli(['recall', '--project', project, 'How often does the gateway poll Modbus?']);
    const json = JSON.parse(cli(['ledger', '--json', '--limit', '1'])) as P.LedgerListResult;
    assert.deepEqual(json.entries[0]?.served_to, { surface: 'cli', name: 'cli', tool: 'recall' });
    assert.equal(json.entries[0]?.query, 'How often does the gateway poll Modbus?');
    assert.ok(json.entries[0]?.items.some((i) => i.id === confirmedId));

    const text = cli(['ledger', '--client', 'claude']);
    assert.match(text, /claude-code 1\.0\.3 \(mcp recall\)  "How often does the gateway poll Modbus\?/);
    assert.doesNotMatch(text, /\(cli recall\)/, '--client keeps to that client');

    const shown = JSON.parse(cli(['show', confirmedId])) as {
      id: string;
      served: { total: number; recent: { client: string; tool: string }[] };
    };
    assert.equal(shown.id, confirmedId);
    assert.ok(shown.served.total >= 4, `served by recall, search, get and the CLI: ${shown.served.total}`);
    assert.deepEqual([...new Set(shown.served.recent.map((r) => `${r.client} ${r.tool}`))].sort(), [
      'claude-code 1.0.3 get',
      'claude-code 1.0.3 recall',
      'claude-code 1.0.3 search',
      'cli recall',
    ]);
  });

  test("an agent's report feeds the confidence once per recall; wrong flags it for review; a person's confirmation stands", async () => {
    const ask = 'Are firmware images signed before upload?';
    const served = (await call('recall', { query: ask })).structuredContent as { items: { id: string }[] };
    assert.ok(
      served.items.some((i) => i.id === activeId),
      'the active memory is recalled',
    );

    const used = await call('report', { id: activeId, verdict: 'used', note: 'signed the image with it' });
    assert.deepEqual(
      { ...(used.structuredContent as object) },
      {
        id: activeId,
        verdict: 'used',
        counted: true,
        status: 'active',
        confidence_score: 0.82,
        in_review: false,
      },
    );
    // Every recall, search or get that served it to this client counts once, and no more.
    const servings = (await sidecar.request(P.LedgerListRequest, { memory_id: activeId, client: 'claude' }))
      .total!;
    for (let i = 2; i <= servings; i++)
      assert.equal(
        (await call('report', { id: activeId, verdict: 'used' })).structuredContent?.counted,
        true,
      );
    const again = await call('report', { id: activeId, verdict: 'used' });
    assert.equal((again.structuredContent as { counted: boolean }).counted, false, 'one report per recall');
    const raised = Math.round(Math.min(0.9, 0.8 + 0.02 * servings) * 1000) / 1000;
    assert.equal((await sidecar.request(P.GetRequest, { id: activeId })).confidence_score, raised);

    await call('recall', { query: ask });
    const wrong = await call('report', { id: activeId, verdict: 'wrong', note: 'we sign at build time now' });
    const lowered = Math.round((raised - 0.1) * 1000) / 1000;
    assert.equal((wrong.structuredContent as { confidence_score: number }).confidence_score, lowered);
    const flagged = await sidecar.request(P.GetRequest, { id: activeId });
    assert.equal(flagged.status, 'active', 'an agent never marks it wrong');
    assert.equal(flagged.flagged_by, 'agent:claude-code@1.0.3');
    const review = await sidecar.request(P.ListRequest, { project_id: project, in_review: true });
    assert.ok(
      review.items.some((m) => m.id === activeId),
      'it waits in the review queue',
    );

    // A memory a person confirmed: the agent's "wrong" flags it and changes nothing else.
    await call('recall', { query: 'How often does the gateway poll Modbus?' });
    await call('report', { id: confirmedId, verdict: 'wrong' });
    const kept = await sidecar.request(P.GetRequest, { id: confirmedId });
    assert.equal(kept.status, 'confirmed');
    assert.equal(kept.confidence_score, 0.9);
    assert.equal(kept.flagged_by, 'agent:claude-code@1.0.3');
    const markWrong = await call('mark_wrong', { id: confirmedId, reason: 'polls every second now' });
    assert.match(toolText(markWrong), /was confirmed by .*it waits for their review/);
    assert.equal((await sidecar.request(P.GetRequest, { id: confirmedId })).status, 'confirmed');
    await sidecar.request(P.ConfirmRequest, { id: confirmedId, by: 'alice@laptop' });
    assert.equal((await sidecar.request(P.GetRequest, { id: confirmedId })).flagged_by, undefined);

    // What it was never served, it cannot report.
    const other = await agent.client.callTool({
      name: 'report',
      arguments: { id: 'mem_0000000000000000', verdict: 'used' },
    });
    assert.equal(other.isError, true);

    const audit = (await sidecar.request(P.AuditListRequest, { memory_id: activeId })).entries;
    const reports = audit
      .filter((e) => e.action === 'report')
      .map((e) => `${e.by} ${e.note?.split(' (')[0]}`);
    assert.equal(reports.length, servings + 1, 'every counted report is audited');
    assert.equal(reports[0], "agent:claude-code@1.0.3 reported wrong; it waits for a person's review");
    assert.equal(reports.at(-1), 'agent:claude-code@1.0.3 reported used');
    assert.match(audit.find((e) => e.action === 'report')!.note!, /: we sign at build time now$/);
    const { entries } = await sidecar.request(P.LedgerListRequest, { memory_id: activeId });
    assert.deepEqual(
      entries.filter((e) => e.query === ask).map((e) => e.items.find((i) => i.id === activeId)?.verdict),
      ['wrong', 'used'],
      'the ledger shows what the agent said about each recall',
    );
  });

  test('deleting a memory and wiping a project remove them from the ledger', async () => {
    const billing = projectFolder(dataDir, 'billing');
    const billingProject = projectIdFor(billing);
    const d = await sidecar.request(P.RememberRequest, {
      text: 'Invoices for the zanzibar account are generated on the first working day.',
      project_id: billingProject,
      source_type: 'manual',
    });
    const billingAgent = await stdioAgent(dataDir, { name: 'codex', version: '0.9', root: billing });
    try {
      const r = await billingAgent.client.callTool({
        name: 'recall',
        arguments: { query: 'When are zanzibar invoices generated?' },
      });
      assert.ok((r.structuredContent as { items: { id: string }[] }).items.some((i) => i.id === d.id));
    } finally {
      await billingAgent.close();
    }
    assert.match(ledgerBytes(dataDir), /zanzibar/);

    await sidecar.request(P.DeleteRequest, { ids: [activeId] });
    const gone = await sidecar.request(P.LedgerListRequest, { memory_id: activeId });
    assert.deepEqual({ entries: gone.entries.length, total: gone.total }, { entries: 0, total: 0 });
    assert.ok(!ledgerBytes(dataDir).includes(activeId), 'the deleted memory is nowhere in the ledger');
    const recalls = await sidecar.request(P.LedgerListRequest, { client: 'claude-code' });
    assert.ok(
      recalls.entries.some((e) => e.query === 'Are firmware images signed before upload?' && e.erased === 1),
      'the recall stays, saying an item was deleted since',
    );

    await sidecar.request(P.WipeProjectRequest, { project_id: billingProject });
    const wiped = await sidecar.request(P.LedgerListRequest, { project_ids: [billingProject] });
    assert.deepEqual(wiped.entries, []);
    assert.ok(!ledgerBytes(dataDir).includes('zanzibar'), "the wiped project's queries are gone from disk");
    assert.ok(
      (await sidecar.request(P.LedgerListRequest, { project_ids: [project] })).entries.length > 0,
      'other projects keep theirs',
    );
  });
});
