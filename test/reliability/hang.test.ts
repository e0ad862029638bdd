import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cleanupDataDir, tempDataDir } from '../support/sidecarSession';
import { chromaServers, cli, killChromaServers } from './support';

// Small-scale rerun of the audit's hang run: short CLI commands print, exit on their own and leave no
// Chroma server behind.
const dataDir = tempDataDir('mnemo-rel-hang-');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

test('12 short CLI runs: 0 hangs, 0 Chroma servers left', { timeout: 12 * 60_000 }, async () => {
  const file = join(dataDir, 't.json');
  writeFileSync(
    file,
    JSON.stringify([
      {
        role: 'user',
        content: 'We set the gateway request timeout to 2500 ms because the PLC answers slowly.',
      },
      { role: 'assistant', content: 'Noted: the gateway request timeout is 2500 ms.' },
    ]),
  );
  const seeded = await cli(dataDir, ['ingest', '--project', 'rel', file]);
  assert.equal(seeded.code, 0, seeded.stderr);
  const runs = [
    ['list', '--project', 'rel'],
    ['stats'],
    ['recall', '--project', 'rel', 'gateway timeout'],
    ['audit', '--project', 'rel'],
  ];
  let hangs = 0;
  for (let i = 0; i < 12; i++) {
    const r = await cli(dataDir, runs[i % runs.length]!);
    if (r.hung) hangs++;
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(chromaServers(dataDir), [], `no Chroma server after run ${i + 1}`);
  }
  console.log(`reliability/hang: 12 runs, ${hangs} hangs, 0 servers left`);
  assert.equal(hangs, 0);
});

test(
  'a CLI killed while its Chroma server starts leaves no server behind after the next run',
  {
    timeout: 5 * 60_000,
  },
  async () => {
    const dir = tempDataDir('mnemo-rel-stray-');
    try {
      // Killed right after spawning its server, before the server answered and was recorded anywhere.
      const killed = await cli(dir, ['stats'], { env: { MNEMO_FAILPOINT: 'chroma-spawned' } });
      assert.equal(killed.code, null, 'the failpoint kills the CLI');
      assert.equal(chromaServers(dir).length, 1, 'the killed CLI left its server running');
      const next = await cli(dir, ['stats']);
      assert.equal(next.code, 0, next.stderr);
      assert.deepEqual(chromaServers(dir), [], 'the next run stopped the stray server and its own');
    } finally {
      killChromaServers(dir);
      cleanupDataDir(dir);
    }
  },
);
