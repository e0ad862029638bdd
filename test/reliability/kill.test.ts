import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { SessionInput } from '../../sidecar/pipeline/types';
import * as P from '../../sidecar/protocol';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';
import { killChromaServers } from './support';

// Small-scale rerun of the audit's kill run: the sidecar is killed with -9 right after captures were
// acknowledged, five times; every acknowledged capture is learned exactly once in the end.
const dataDir = tempDataDir('mnemo-rel-kill-');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

const TOPICS = [
  'billing API timeout',
  'Postgres pool size',
  'Redis session TTL',
  'nightly backup hour',
  'release branch cadence',
  'worker thread count',
  'upload size limit',
  'log retention days',
  'retry count for uploads',
  'gateway polling interval',
];

test(
  '5 kill -9s right after acknowledged captures: 0 lost, 0 doubled',
  { timeout: 10 * 60_000 },
  async () => {
    const acknowledged: string[] = [];
    let n = 0;
    for (let round = 0; round < 5; round++) {
      const s = await SidecarSession.start(testConfig(dataDir));
      for (let k = 0; k < 2; k++) {
        const topic = TOPICS[n % TOPICS.length]!;
        const marker = `K${round}x${k}`;
        const r = await s.request(P.CaptureSessionRequest, {
          project_id: 'kill',
          source_type: 'chat',
          messages: [
            {
              id: `${marker}a`,
              role: 'user',
              content: `We decided that the ${topic} is set to ${100 + n} for service ${marker}.`,
            },
            {
              id: `${marker}b`,
              role: 'assistant',
              content: `Noted: for service ${marker} the ${topic} is ${100 + n}.`,
            },
          ],
        });
        assert.ok(r.queue_id);
        acknowledged.push(marker);
        n++;
      }
      await s.kill9(); // mid-drain: the captures are acknowledged, maybe not yet processed
    }
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      assert.equal((await s.request(P.FlushQueueRequest, { timeout_ms: 180_000 })).remaining, 0);
      const list = await s.request(P.ListRequest, { project_id: 'kill', limit: 10_000 });
      let lost = 0;
      let doubled = 0;
      for (const marker of acknowledged) {
        const found = list.items.filter(
          (m) => m.text.includes(`service ${marker}`) && m.text.startsWith('We decided'),
        ).length;
        if (found === 0) lost++;
        if (found > 1) doubled++;
      }
      console.log(
        `reliability/kill: 5 kills, ${acknowledged.length} acknowledged captures, ${lost} lost, ${doubled} doubled`,
      );
      assert.equal(lost, 0);
      assert.equal(doubled, 0);
    } finally {
      await s.stop();
    }
  },
);

/** A session stating three facts of one service. */
function facts(service: string, ids: string): SessionInput {
  return {
    project_id: 'replay',
    source_type: 'chat',
    messages: [
      {
        id: `${ids}1`,
        role: 'user',
        content: `We decided that the billing API timeout is 4500 ms for ${service}.`,
      },
      {
        id: `${ids}2`,
        role: 'user',
        content: `We agreed the Postgres pool size is 48 connections for ${service}.`,
      },
      {
        id: `${ids}3`,
        role: 'assistant',
        content: `Noted: the Redis session TTL is 90 minutes for ${service}.`,
      },
    ],
  };
}

/** Starts a sidecar that kills itself at `failpoint`, captures, and waits for the crash. */
async function crashAt(failpoint: string, session: SessionInput): Promise<void> {
  const s = await SidecarSession.start(testConfig(dataDir), { MNEMO_FAILPOINT: failpoint });
  const exited = new Promise<void>((r) => s.proc.once('exit', () => r()));
  // The reply may or may not get out before the crash: the capture is on disk either way.
  await s.request(P.CaptureSessionRequest, session).catch(() => undefined);
  await exited;
  s.conn.dispose();
}

test(
  'a capture replayed after kill -9 mid-drain: every memory has its create entry, times_seen counts once',
  { timeout: 10 * 60_000 },
  async () => {
    // Killed after the memories reached Chroma, before their audit entries were appended.
    await crashAt('store-written', facts('service R1', 'r1-'));
    let s = await SidecarSession.start(testConfig(dataDir));
    let ids: string[];
    try {
      assert.equal((await s.request(P.FlushQueueRequest, { timeout_ms: 180_000 })).remaining, 0);
      const list = await s.request(P.ListRequest, {
        project_id: 'replay',
        include_global: false,
        limit: 100,
      });
      ids = list.items.map((m) => m.id);
      assert.ok(ids.length >= 2, `the facts were learned (${ids.length})`);
      const audit = await s.request(P.AuditListRequest, { project_id: 'replay' });
      const created = ids.filter((id) =>
        audit.entries.some((e) => e.memory_id === id && e.action === 'create'),
      );
      const twice = ids.filter(
        (id) => audit.entries.filter((e) => e.memory_id === id && e.action === 'create').length > 1,
      );
      console.log(
        `reliability/kill replay: ${ids.length} memories, ${ids.length - created.length} without a create entry, ${twice.length} with two`,
      );
      assert.deepEqual(ids.length - created.length, 0, 'no memory without its create entry');
      assert.equal(twice.length, 0, 'no create entry written twice');
      assert.ok(
        list.items.every((m) => m.times_seen === 1),
        'a replay counts nothing',
      );
    } finally {
      await s.stop();
    }

    // The same facts again, killed after processing, before the queue marked the capture done.
    await crashAt('capture-processed', facts('service R1', 'r2-'));
    s = await SidecarSession.start(testConfig(dataDir));
    try {
      assert.equal((await s.request(P.FlushQueueRequest, { timeout_ms: 180_000 })).remaining, 0);
      const list = await s.request(P.ListRequest, {
        project_id: 'replay',
        include_global: false,
        limit: 100,
      });
      const seen = list.items.filter((m) => ids.includes(m.id)).map((m) => m.times_seen);
      console.log(`reliability/kill replay: times_seen after one repeat and one replay: ${seen.join(', ')}`);
      assert.deepEqual(
        seen,
        ids.map(() => 2),
        'seen twice, not three times',
      );
      const audit = await s.request(P.AuditListRequest, { project_id: 'replay' });
      for (const id of ids)
        assert.equal(
          audit.entries.filter((e) => e.memory_id === id && e.action === 'refresh').length,
          1,
          `one refresh entry for ${id}`,
        );
    } finally {
      await s.stop();
    }
  },
);
