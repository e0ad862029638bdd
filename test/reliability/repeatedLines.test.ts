import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import {
  SidecarSession,
  cleanupDataDir,
  inProcessService,
  tempDataDir,
  testConfig,
} from '../support/sidecarSession';
import { cli, killChromaServers } from './support';

// The audit's repeated-line run (issue 39, item 2): a pasted log of one line repeated for 19 KB splits into
// several identical 4,000-character parts of one turn. They used to get one episode id, Chroma refused
// the batch, the CLI exited 1 after storing the memories and no turn, and the sidecar dropped the capture.
const dataDir = tempDataDir('mnemo-rel-repeat-');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

const LINE =
  '2024-05-01 12:00:01 WARN [worker-3] connection to db.internal:5432 reset by peer, retrying in 5s\n';
const LOG = LINE.repeat(Math.ceil(19_000 / LINE.length));
const session = (tag: string): { role: string; content: string }[] => [
  { role: 'user', content: `We decided that worker ${tag} retries the db connection every 5 seconds.` },
  { role: 'user', content: LOG },
  { role: 'assistant', content: `Noted: worker ${tag} retries every 5 seconds; the log repeats one line.` },
];

async function turnsOf(project: string): Promise<{ message_id: string; text: string }[]> {
  const svc = inProcessService(dataDir);
  try {
    await svc.start();
    return await svc.episodes.find({ project_id: project });
  } finally {
    await svc.dispose();
  }
}

test(
  'a 19 KB log of one repeated line is kept whole through mnemo ingest',
  { timeout: 5 * 60_000 },
  async () => {
    const file = join(dataDir, '..', `${dataDir.split('/').pop()}-repeat.json`);
    writeFileSync(file, JSON.stringify(session('cli')));
    const r = await cli(dataDir, ['ingest', file, '--project', 'repeat-cli']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Read all 3 messages, each whole\./);
    const turns = await turnsOf('repeat-cli');
    const log = turns.filter((t) => t.message_id === 'm1');
    assert.ok(log.length >= 5, `the log is kept as ${log.length} parts`);
    assert.equal(
      log
        .map((t) => t.text)
        .join('\n')
        .replace(/\s+/g, ' ')
        .trim(),
      LOG.replace(/\s+/g, ' ').trim(),
    );
    assert.equal(turns.length, log.length + 2, 'the other two turns are kept too');
    // Ingesting it again replaces the same turns: the parts' ids are stable.
    const again = await cli(dataDir, ['ingest', file, '--project', 'repeat-cli']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((await turnsOf('repeat-cli')).length, turns.length);
  },
);

test('the same log captured by the sidecar is learned, not dropped', { timeout: 5 * 60_000 }, async () => {
  const s = await SidecarSession.start(testConfig(dataDir));
  try {
    const ack = await s.request(P.CaptureSessionRequest, {
      project_id: 'repeat-capture',
      source_type: 'chat',
      messages: session('capture'),
    });
    assert.ok(ack.queue_id);
    assert.equal((await s.request(P.FlushQueueRequest, { timeout_ms: 120_000 })).remaining, 0);
    const list = await s.request(P.ListRequest, { project_id: 'repeat-capture', limit: 100 });
    assert.ok(
      list.items.some((m) => m.text.includes('worker capture retries')),
      'the decision was learned',
    );
    assert.ok(!s.logs.some((l) => l.level === 'error'), s.logs.map((l) => l.message).join('\n'));
  } finally {
    await s.stop();
  }
  const turns = await turnsOf('repeat-capture');
  assert.ok(turns.filter((t) => t.message_id === 'm1').length >= 5);
});

test(
  'turns the store refuses are a partial result: the memories stay learned',
  { timeout: 3 * 60_000 },
  async () => {
    const svc = inProcessService(dataDir);
    try {
      await svc.start();
      // Chroma refusing the turns' batch for a reason of its own (as it refused the duplicate ids).
      svc.episodes.upsert = () => Promise.reject(new Error('Expected IDs to be unique'));
      const report = await svc.ingest({
        project_id: 'repeat-partial',
        source_type: 'chat',
        messages: session('partial'),
      });
      assert.ok(report.stored >= 1, 'the decision was stored');
      assert.equal(report.episodes, 0);
      assert.match(
        report.episodes_error ?? '',
        /^The turns could not be kept as evidence: Expected IDs to be unique\.$/,
      );
    } finally {
      await svc.dispose();
    }
  },
);
