import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cleanupDataDir, inProcessService, tempDataDir } from '../support/sidecarSession';
import { cli, killChromaServers } from './support';

// Issue 39, item 11: a transcript of 32,767+ messages failed with "too many SQL variables" after its memories
// were stored: Chroma's SQLite refuses a statement with more than 32,766 variables, and the turns were
// looked up by all their ids at once. Every lookup, update and delete by ids goes in batches.
const dataDir = tempDataDir('mnemo-rel-many-');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

const N = 33_000;

test(`a transcript of ${N} messages is kept whole and wiped`, { timeout: 20 * 60_000 }, async () => {
  const messages = Array.from({ length: N }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content:
      i === 5
        ? 'We decided that the nightly job runs at 02:00.'
        : i % 2
          ? 'ok, noted'
          : `checking item ${i % 7}`,
  }));
  const file = join(dataDir, '..', `${dataDir.split('/').pop()}-many.json`);
  writeFileSync(file, JSON.stringify(messages));
  // Its turns are looked up by id before they are written (what an earlier ingest kept of them).
  const r = await cli(dataDir, ['ingest', file, '--project', 'many'], { boundMs: 15 * 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.replace(/Loading [^\n]*\n/g, ''), '', 'no partial result');
  assert.match(r.stdout, new RegExp(`Read all ${N} messages`));
  const svc = inProcessService(dataDir);
  try {
    await svc.start();
    assert.equal(await svc.episodes.count(), N, 'every turn is kept, once');
    // Lookups by more ids than SQLite takes variables: the turns by their ids, memories that do not exist.
    const turnIds = (await svc.episodes.find({ project_id: 'many' })).map((e) => e.id);
    assert.equal((await svc.episodes.get(turnIds)).length, N);
    const ids = Array.from({ length: 40_000 }, (_, i) => `mem_${i.toString(16).padStart(16, '0')}`);
    assert.deepEqual(await svc.store.get(ids), []);
  } finally {
    await svc.dispose();
  }
  const wiped = await cli(dataDir, ['wipe', '--project', 'many', '--yes'], { boundMs: 10 * 60_000 });
  assert.equal(wiped.code, 0, wiped.stderr);
  const again = inProcessService(dataDir);
  try {
    await again.start();
    assert.equal(await again.episodes.count(), 0);
  } finally {
    await again.dispose();
  }
});
