import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { StoreUnavailableError } from '../../sidecar/shared/errors';
import { AuditLog } from '../../sidecar/lifecycle/audit';
import { DurableQueue } from '../../sidecar/queue';
import { mountSmallDisk, type SmallDisk } from '../support/smallDisk';

// A real 256 KiB tmpfs (or a loop device): writes really come back short and then fail with ENOSPC.
const mounted = mountSmallDisk(256 * 1024);
const disk: SmallDisk | undefined = 'skip' in mounted ? undefined : mounted;
const skip = 'skip' in mounted ? mounted.skip : false;
if (skip) console.log(`queueDiskFull: skipped, ${skip}`);

after(() => disk?.unmount());

function parsedLines(file: string): unknown[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown); // throws on a torn line
}

test(
  'a full disk refuses a capture with one sentence; every acknowledged capture survives, no torn line',
  { skip },
  () => {
    const file = join(disk!.dir, 'queue', 'capture-1.jsonl');
    const q = new DurableQueue<{ text: string }>(file);
    const filler = disk!.fill(3 * 4096); // tmpfs allocates whole pages
    const acknowledged: string[] = [];
    let refused: unknown;
    for (let i = 0; i < 50 && !refused; i++) {
      try {
        acknowledged.push(q.enqueue({ text: `fact ${i} ${'x'.repeat(700)}` }).id);
      } catch (e) {
        refused = e;
      }
    }
    assert.ok(refused instanceof StoreUnavailableError, `refused with ${String(refused)}`);
    assert.match(
      refused.message,
      /^The disk is full, so the capture queue could not be written; free some space and try again\.$/,
    );
    assert.ok(acknowledged.length >= 1, 'some captures fit before the disk filled');
    assert.equal(q.size, acknowledged.length, 'the refused capture is not pending');

    // The failure markers of the drain never throw on a full disk.
    assert.doesNotThrow(() => q.markFailed(acknowledged[0]!, 'Chroma said no'));
    assert.equal(q.markDone(acknowledged[0]!), false, 'the done marker could not be written');
    q.close();

    // Restart: the file parses line by line and holds exactly the acknowledged captures.
    assert.equal(parsedLines(file).length, acknowledged.length);
    const reopened = new DurableQueue<{ text: string }>(file);
    assert.deepEqual(
      reopened.pending().map((e) => e.id),
      acknowledged,
      'every acknowledged capture is replayed after a restart (the unwritten done marker replays one: upserts are idempotent)',
    );

    // Space again: the next append is a line of its own, not glued to a torn fragment.
    rmSync(filler);
    const next = reopened.enqueue({ text: 'after the disk was freed' });
    reopened.close();
    const lines = parsedLines(file) as Array<{ id: string }>;
    assert.equal(lines[lines.length - 1]!.id, next.id);
    assert.equal(new DurableQueue(file).size, acknowledged.length + 1);
  },
);

test(
  'the audit log on a full disk refuses the batch whole, with one sentence, and stays parseable',
  { skip },
  () => {
    const file = join(disk!.dir, 'audit', 'audit.jsonl');
    const log = new AuditLog(file);
    const filler = disk!.fill(2 * 4096);
    const entry = (i: number) => ({
      at: '2026-01-01T00:00:00.000Z',
      action: 'create' as const,
      memory_id: `mem_${i}`,
      project_id: 'p',
      by: 'tester@ci',
      note: 'y'.repeat(400),
    });
    let written = 0;
    let refused: unknown;
    for (let i = 0; i < 20 && !refused; i++) {
      try {
        log.append([entry(i), entry(i + 100)]);
        written += 2;
      } catch (e) {
        refused = e;
      }
    }
    assert.ok(refused instanceof StoreUnavailableError);
    assert.match(refused.message, /^The disk is full, so the audit log could not be written/);
    log.close();
    assert.equal(parsedLines(file).length, written, 'no half batch, no torn line');
    rmSync(filler);
  },
);
