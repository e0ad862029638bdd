import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

// The audit: a lone surrogate in 1 of 6 messages made Chroma answer 400; three retries later all six
// were dropped. An emoji cut at character 2000 broke `remember` and a whole bulk import (0 of 10).

const dataDir = tempDataDir();
after(() => cleanupDataDir(dataDir));

test(
  'one bad character never loses a session, a remembered fact or a bulk import',
  { timeout: 180_000 },
  async () => {
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      const facts = [
        'We set the billing API request timeout to 1500 ms for the slow upstream.',
        'The Postgres database for billing listens on port 6432 behind pgbouncer.',
        'We decided to deploy the billing worker with Kubernetes on three nodes \uD83D.',
        'The nightly backup of the billing database runs at 02:00 UTC every day.',
        'We configure the Redis cache for sessions with a TTL of 30 minutes.',
        'The release branch for billing is cut every two weeks on Monday.',
      ];
      await s.request(P.CaptureSessionRequest, {
        project_id: 'sur',
        source_type: 'chat',
        messages: facts.map((content, i) => ({ id: `m${i}`, role: 'user', content })),
      });
      assert.equal((await s.request(P.FlushQueueRequest, { timeout_ms: 120_000 })).remaining, 0);
      const listed = await s.request(P.ListRequest, { project_id: 'sur', limit: 100 });
      assert.ok(listed.total >= 5, `the session was learned (${listed.total} memories), not dropped`);
      assert.ok(
        listed.items.some((m) => m.text.includes('Kubernetes on three nodes')),
        'the message with the lone surrogate was kept',
      );

      const long = 'We note that '.padEnd(1999, 'x') + '😀 and more';
      const d = await s.request(P.RememberRequest, { text: long, project_id: 'sur' });
      assert.equal(d.outcome, 'stored');

      const bulk = Array.from({ length: 10 }, (_, i) => ({
        text: `Import ${i}: the service ${i} config lives in repo ${i} `.padEnd(1999, 'y') + '😀 tail',
        project_id: 'sur-bulk',
      }));
      const r = await s.request(P.BulkImportRequest, { memories: bulk });
      assert.equal(r.imported + r.duplicates, 10, `the bulk import went through (${JSON.stringify(r)})`);
      assert.ok(r.imported >= 1);
    } finally {
      await s.stop();
    }
  },
);
