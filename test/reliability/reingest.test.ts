import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cleanupDataDir, inProcessService, tempDataDir } from '../support/sidecarSession';
import { cli, killChromaServers } from './support';

// Issue 39, item 14: re-ingesting a transcript without timestamps stored every turn again (500 -> 1,000
// episodes). The same turns, read again, are the same episodes.
const dataDir = tempDataDir('mnemo-rel-reingest-');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

const N = 500;

test(
  `a transcript of ${N} undated messages ingested twice keeps ${N} turns`,
  { timeout: 10 * 60_000 },
  async () => {
    const messages = Array.from({ length: N }, (_, i) =>
      i % 2
        ? {
            role: 'assistant',
            content: `Worker ${(i - 1) / 2} retries ${(i % 7) + 1} times before giving up.`,
          }
        : { role: 'user', content: `What is the retry count for worker ${i / 2}?` },
    );
    messages[10] = { role: 'user', content: 'We decided that the nightly billing job runs at 02:00 UTC.' };
    const file = join(dataDir, '..', `${dataDir.split('/').pop()}-undated.json`);
    writeFileSync(file, JSON.stringify(messages));
    const counts: number[] = [];
    for (let run = 0; run < 2; run++) {
      const r = await cli(dataDir, ['ingest', file, '--project', 'again'], { boundMs: 5 * 60_000 });
      assert.equal(r.code, 0, r.stderr);
      const svc = inProcessService(dataDir);
      try {
        await svc.start();
        counts.push(await svc.episodes.count());
      } finally {
        await svc.dispose();
      }
    }
    assert.deepEqual(counts, [N, N], 'every turn is kept once, also after the second ingest');
  },
);
