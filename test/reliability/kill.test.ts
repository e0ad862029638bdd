import assert from 'node:assert/strict';
import { after, test } from 'node:test';
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
