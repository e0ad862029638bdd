/**
 * The sidecar end to end over JSON-RPC: a real sidecar process, a real Chroma server, real all-MiniLM
 * weights. Ingest a transcript, recall it with its message ids, survive a restart.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { REPO, SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

const transcript = JSON.parse(
  readFileSync(join(REPO, 'test/fixtures/transcripts/plc-session.json'), 'utf8'),
) as { messages: P.IngestParams['messages'] };

describe('sidecar over JSON-RPC', () => {
  const dataDir = tempDataDir();
  let s: SidecarSession;
  before(async () => {
    s = await SidecarSession.start(testConfig(dataDir));
  });
  after(async () => {
    await s?.stop();
    cleanupDataDir(dataDir);
  });

  test('ingest keeps what matters, with reasons, and drops small talk and hedges', async () => {
    const report = await s.request(P.IngestRequest, {
      project_id: 'plant-a',
      source_type: 'chat',
      messages: transcript.messages,
      explain: true,
    });
    const kept = report.decisions.filter((d) => d.outcome === 'stored' || d.outcome === 'pending');
    assert.ok(
      kept.some((d) => /1500ms/.test(d.text)),
      'the PLC threshold is kept',
    );
    assert.ok(
      kept.some((d) => /vim/.test(d.text)),
      'the editor preference is kept',
    );
    const hedge = report.decisions.find((d) => /Maybe it's the network/.test(d.text));
    assert.equal(hedge?.outcome, 'dropped', 'the hedged sentence is dropped');
    for (const d of report.decisions)
      assert.ok(d.reason.length > 0, `every decision has a reason: ${d.text}`);
  });

  test('recall returns the memory with the ids of the messages it came from', async () => {
    const res = await s.request(P.RecallRequest, {
      query: 'PLC-3000 通讯超时阈值是多少',
      project_ids: ['plant-a'],
      min_confidence: 0,
    });
    const hit = res.items.find((i) => /1500ms/.test(i.memory.text));
    assert.ok(hit, `recalled: ${res.items.map((i) => i.memory.text).join(' | ')}`);
    assert.ok(hit.memory.source_ref.includes('msg:u2'), `source_ref ${hit.memory.source_ref.join(', ')}`);
    assert.match(res.block, /mem_[0-9a-f]{16}/);
    assert.ok(res.tokens > 0 && res.tokens <= 800);
  });

  test('another project never sees these memories', async () => {
    const res = await s.request(P.RecallRequest, {
      query: 'PLC-3000 通讯超时阈值',
      project_ids: ['plant-b'],
      min_confidence: 0,
    });
    assert.deepEqual(res.items, []);
  });

  test('ingesting the same conversation twice stores nothing new', async () => {
    const before = await s.request(P.ListRequest, { project_id: 'plant-a' });
    const report = await s.request(P.IngestRequest, {
      project_id: 'plant-a',
      source_type: 'chat',
      messages: transcript.messages,
    });
    assert.equal(report.stored + report.pending, 0, JSON.stringify(report.decisions));
    assert.ok(report.refreshed > 0);
    const after = await s.request(P.ListRequest, { project_id: 'plant-a' });
    assert.equal(after.total, before.total);
    assert.ok(
      after.items.some((m) => m.times_seen === 2),
      'duplicates refresh the existing memory',
    );
  });

  test('bad input gets one clear sentence and changes nothing', async () => {
    const before = await s.request(P.ListRequest, {});
    await assert.rejects(
      s.request(P.IngestRequest, { project_id: 'plant-a', source_type: 'chat', messages: 'nope' as never }),
      (e: { code: number; message: string }) =>
        e.code === P.ErrorCodes.InvalidInput && /messages/.test(e.message),
    );
    await assert.rejects(
      s.request(P.GetRequest, { id: 'mem_doesnotexist0000' }),
      (e: { code: number }) => e.code === P.ErrorCodes.NotFound,
    );
    await assert.rejects(
      s.request(P.RememberRequest, { text: '   ', project_id: 'plant-a' }),
      (e: { code: number; message: string }) =>
        e.code === P.ErrorCodes.InvalidInput && /empty/.test(e.message),
    );
    const after = await s.request(P.ListRequest, {});
    assert.equal(after.total, before.total);
  });

  test('mark wrong: never recalled again, re-learning blocked, audited with before and after', async () => {
    const decision = await s.request(P.RememberRequest, {
      text: 'PLC-3000 must use the Windows Server 2012 driver',
      project_id: 'plant-a',
    });
    assert.ok(decision.id);
    const wrong = await s.request(P.MarkWrongRequest, { id: decision.id! });
    assert.equal(wrong.status, 'wrong');
    assert.equal(wrong.confidence_score, 0);
    const res = await s.request(P.RecallRequest, {
      query: 'which driver does PLC-3000 need',
      project_ids: ['plant-a'],
      min_confidence: 0,
    });
    assert.ok(!res.items.some((i) => i.memory.id === decision.id), 'a wrong memory is never recalled');
    const again = await s.request(P.RememberRequest, {
      text: 'PLC-3000 must use the Windows Server 2012 driver',
      project_id: 'plant-a',
    });
    assert.equal(again.outcome, 'dropped');
    assert.match(again.reason, /marked wrong/);
    const audit = await s.request(P.AuditListRequest, { memory_id: decision.id! });
    const entry = audit.entries.find((e) => e.action === 'wrong');
    assert.ok(entry, 'the audit log has the wrong-marking');
    assert.deepEqual(entry.changes?.status, ['confirmed', 'wrong']);
    assert.match(entry.at, /Z$/);
  });

  test('data survives a restart of the sidecar', async () => {
    const before = await s.request(P.ListRequest, { project_id: 'plant-a' });
    await s.stop();
    s = await SidecarSession.start(testConfig(dataDir));
    const after = await s.request(P.ListRequest, { project_id: 'plant-a' });
    assert.equal(after.total, before.total);
    assert.deepEqual(after.items.map((m) => m.id).sort(), before.items.map((m) => m.id).sort());
    const status = await s.waitFor('a status with counts', () =>
      s.statuses.find((x) => x.memory_count !== undefined && x.health === 'ok'),
    );
    assert.equal(status.memory_count, after.total);
  });

  test('a request that arrives while the model loads waits for that load, not a second one', async () => {
    // Each load ends in a check of the lexical index against the whole store (recall/lexicalSync.ts):
    // a second one doubled the start-up reads of a large store.
    await s.stop();
    s = await SidecarSession.start(testConfig(dataDir));
    const ready = await s.request(P.RecallRequest, { query: 'PLC timeout', project_ids: ['plant-a'] });
    assert.ok(ready.items.length > 0);
    const log = readFileSync(join(dataDir, 'logs', 'sidecar.log'), 'utf8');
    const thisStart = log.slice(log.lastIndexOf('Mnemo sidecar'));
    assert.equal(thisStart.match(/Embedding model ready/g)?.length, 1, thisStart);
  });
});
