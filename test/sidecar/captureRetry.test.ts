import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { failedCaptureDelay } from '../../sidecar/ingest/capture';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

// Issue 39, item 2: an acknowledged capture is never dropped. One that fails for a reason other than an
// unavailable model or store (here: a queue entry an older version wrote, which this one cannot read) used to
// be retried three times in a few seconds and thrown away; now it stays queued, is retried with a growing
// backoff, the status says so, and the captures behind it are learned meanwhile.
const dataDir = tempDataDir('mnemo-capture-retry-');
after(() => cleanupDataDir(dataDir));

test('the backoff of a failing capture doubles from 2 s to at most an hour', () => {
  assert.deepEqual([1, 2, 3, 4].map(failedCaptureDelay), [2000, 4000, 8000, 16_000]);
  assert.equal(failedCaptureDelay(12), 3_600_000);
  assert.equal(failedCaptureDelay(1000), 3_600_000);
});

test(
  'a capture that keeps failing stays queued and the ones behind it are learned',
  { timeout: 180_000 },
  async () => {
    // The queue of a process that died, holding one entry this version fails on and one it can learn.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    mkdirSync(join(dataDir, 'queue'), { recursive: true });
    const broken = {
      op: 'add',
      id: 'broken-entry',
      at: new Date().toISOString(),
      payload: { project_id: 'retry', source_type: 'chat', messages: 'not a list' },
    };
    const good = {
      op: 'add',
      id: 'good-entry',
      at: new Date().toISOString(),
      payload: {
        project_id: 'retry',
        source_type: 'chat',
        messages: [
          { role: 'user', content: 'We decided that the staging cluster is rebuilt every Monday at 06:00.' },
          { role: 'assistant', content: 'Noted: staging is rebuilt every Monday at 06:00.' },
        ],
      },
    };
    writeFileSync(
      join(dataDir, 'queue', `capture-${dead}.jsonl`),
      [broken, good].map((l) => JSON.stringify(l)).join('\n') + '\n',
    );
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      // The four attempts of the old policy's window and one more: 0 s, 2 s, 6 s, 14 s.
      await s.waitFor(
        'a fourth failed attempt',
        () => s.logs.some((l) => /Capture broken-e failed \(attempt 4\)/.test(l.message)),
        90_000,
      );
      const list = await s.request(P.ListRequest, { project_id: 'retry', limit: 10 });
      assert.ok(
        list.items.some((m) => m.text.includes('rebuilt every Monday')),
        'the capture behind it was learned',
      );
      assert.ok(!s.logs.some((l) => /dropped/i.test(l.message) && /broken-e/.test(l.message)));
      const queued = readdirSync(join(dataDir, 'queue'))
        .filter((f) => f.startsWith('capture-'))
        .map((f) => readFileSync(join(dataDir, 'queue', f), 'utf8'))
        .join('');
      assert.match(queued, /broken-entry/, 'the failing capture is still on disk');
      const status = await s.waitFor('a status that counts the failing capture', () =>
        s.statuses.find((st) => /1 capture could not be processed/.test(st.message)),
      );
      assert.equal(status.health, 'warning');
      assert.equal((await s.request(P.StatsRequest, {})).queued, 1);
    } finally {
      await s.stop();
    }
  },
);
