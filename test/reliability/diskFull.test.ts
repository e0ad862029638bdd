import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { SidecarSession, testConfig, waitFor } from '../support/sidecarSession';
import { mountSmallDisk, type SmallDisk } from '../support/smallDisk';
import { chromaServers, cli, killChromaServers } from './support';

// Small-scale rerun of the audit's full-disk run on a real tmpfs: captures on a full disk are stored or
// refused with one sentence, never acknowledged and lost; the sidecar survives its drain failing; after
// space is freed the next start is not locked out and every acknowledged capture is learned.
const mounted = mountSmallDisk(160 * 1024 * 1024);
const disk: SmallDisk | undefined = 'skip' in mounted ? undefined : mounted;
const skip = 'skip' in mounted ? mounted.skip : false;
if (skip) console.log(`reliability/diskFull: skipped, ${skip}`);
const dataDir = disk ? join(disk.dir, 'data') : '';
// Distinct facts: near-duplicates would be merged by dedup, which is not what this test is about.
const TOPICS = [
  'the billing API timeout is 1500 ms',
  'the Postgres pool size is 20 connections',
  'the Redis session TTL is 30 minutes',
  'the nightly backup runs at 02:00 UTC',
  'the release branch is cut every two weeks',
  'the worker pool has 8 threads',
  'the upload size limit is 10 MB',
  'logs are kept for 14 days',
  'uploads are retried 3 times',
  'the gateway polls the PLC every 250 ms',
];
after(() => {
  if (!disk) return;
  killChromaServers(dataDir);
  disk.unmount();
});

test(
  'a full disk: every capture stored or refused in one sentence, no lockout after',
  { skip, timeout: 8 * 60_000 },
  async () => {
    const s1 = await SidecarSession.start(testConfig(dataDir));
    const acknowledged: string[] = [];
    const refused: string[] = [];
    let filler = '';
    try {
      await s1.request(P.RememberRequest, {
        text: 'Warm-up: the staging cluster runs three nodes.',
        project_id: 'disk',
      });
      filler = disk!.fill(12 * 4096); // a few pages left: the first captures fit, the next ones do not
      for (let i = 0; i < 10; i++) {
        const marker = `D${i}`;
        try {
          await s1.request(P.CaptureSessionRequest, {
            project_id: 'disk',
            source_type: 'chat',
            messages: [
              {
                id: `${marker}a`,
                role: 'user',
                content: `We decided that for service ${marker} ${TOPICS[i]}.`.padEnd(6000, ' '),
              },
              { id: `${marker}b`, role: 'assistant', content: `Noted for service ${marker}: ${TOPICS[i]}.` },
            ],
          });
          acknowledged.push(marker);
        } catch (e) {
          const err = e as { code?: number; message?: string };
          assert.equal(err.code, P.ErrorCodes.StoreUnavailable, String(err.message));
          assert.match(err.message ?? '', /^The disk is full, so [^.]+; free some space and try again\.$/);
          refused.push(marker);
        }
      }
      // The drain runs against the full disk; the sidecar must survive it.
      await s1.request(P.FlushQueueRequest, { timeout_ms: 5000 }).catch(() => undefined);
      assert.equal(s1.proc.exitCode, null, 'the sidecar is still running');
      assert.ok(!s1.stderr.join('').includes('ENOSPC: no space'), 'no unhandled ENOSPC');
    } finally {
      await s1.kill9();
    }
    rmSync(filler, { force: true });
    const s2 = await SidecarSession.start(testConfig(dataDir));
    try {
      const remaining = (await s2.request(P.FlushQueueRequest, { timeout_ms: 120_000 })).remaining;
      if (remaining) {
        for (const f of ['sidecar.log', 'chroma.log']) {
          try {
            console.log(
              `--- ${f}\n${readFileSync(join(dataDir, 'logs', f), 'utf8')
                .split('\n')
                .slice(-25)
                .join('\n')}`,
            );
          } catch {
            // not there
          }
        }
      }
      assert.equal(remaining, 0);
      const list = await s2.request(P.ListRequest, { project_id: 'disk', limit: 1000 });
      const lost = acknowledged.filter((m) => !list.items.some((x) => x.text.includes(`service ${m} `)));
      console.log(
        `reliability/diskFull: ${acknowledged.length} acknowledged, ${refused.length} refused, ${lost.length} acknowledged and lost`,
      );
      assert.deepEqual(lost, []);
      assert.ok(refused.length > 0, 'the disk really filled up');
    } finally {
      await s2.stop();
    }
  },
);

// Issue 39, item 14: on a full disk even `list` and `recall` failed: the start lock could not be written,
// and Chroma's SQLite needs a few pages to open its database. The lock needs no data block now, and the
// data folder's reserve (store/diskReserve.ts) is released so Chroma can open.
test('a full disk: list and recall still answer', { skip, timeout: 5 * 60_000 }, async () => {
  const readDir = join(disk!.dir, 'reads');
  const s = await SidecarSession.start(testConfig(readDir));
  try {
    await s.request(P.RememberRequest, {
      text: 'The billing API timeout is 1500 ms for every region.',
      project_id: 'reads',
    });
  } finally {
    await s.stop();
  }
  killChromaServers(readDir);
  await waitFor('Chroma stopped', () => chromaServers(readDir).length === 0 || undefined);
  const filler = disk!.fill(0);
  try {
    const listed = await cli(readDir, ['list', '--project', 'reads', '--json'], { boundMs: 120_000 });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /1500 ms/);
    const recalled = await cli(readDir, ['recall', '--project', 'reads', 'billing API timeout'], {
      boundMs: 120_000,
    });
    assert.equal(recalled.code, 0, recalled.stderr);
    assert.match(recalled.stdout, /1500 ms/);
  } finally {
    killChromaServers(readDir);
    rmSync(filler, { force: true });
  }
});
