/**
 * The watcher (sidecar/capture/watch.ts) over the real capture runner and real Claude Code transcript files,
 * on a clock the test sets: a new answer is learned at the next look, the person's last words wait for the
 * answer or for the session to go quiet, and a file is read only when a read can give something new — not
 * every second while it holds a message back, and not once more for every file a backfill already read when
 * watching starts.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { FINAL_QUIET_MS, SETTLE_MS } from '../../sidecar/capture/capture';
import { CaptureWatcher } from '../../sidecar/capture/watch';
import { captureHarness, chatLines, type Harness } from '../support/captureHarness';

const CWD = '/home/dev/shop';
const h = captureHarness([CWD]);
after(() => h.cleanup());
const dir = join(h.home, '.claude', 'projects', CWD.replace(/[^A-Za-z0-9]/g, '-'));
mkdirSync(dir, { recursive: true });

const line = (session: string, uuid: string, role: 'user' | 'assistant', text: string): string =>
  JSON.stringify({
    type: role,
    uuid,
    sessionId: session,
    cwd: CWD,
    isSidechain: false,
    timestamp: '2026-12-01T10:00:00.000Z',
    message:
      role === 'user'
        ? { role, content: text }
        : { id: `msg_${uuid}`, role, content: [{ type: 'text', text }] },
  }) + '\n';
const file = (session: string): string => join(dir, `${session}.jsonl`);
const mtime = (session: string): number => statSync(file(session)).mtimeMs;

/** The watcher on the harness's clock, and how many files each look read. */
function watcher(harness: Harness): { w: CaptureWatcher; reads: () => number } {
  let reads = 0;
  const capture = harness.capture;
  const real = capture.captureFile.bind(capture);
  const counted = Object.create(capture) as typeof capture;
  counted.captureFile = (...a) => {
    reads++;
    return real(...a);
  };
  const w = new CaptureWatcher(counted, {
    log: { info: () => undefined, warn: () => undefined },
    busy: () => false,
    clock: () => new Date(harness.now.ms),
    pollMs: 3_600_000, // the test looks itself
    lookBudgetMs: 60_000, // every file in one look, however slow the machine
  });
  return {
    w,
    reads: () => {
      const n = reads;
      reads = 0;
      return n;
    },
  };
}

test('a held message is read again when it can be learned, not at every look; an answer at the next look', async () => {
  writeFileSync(
    file('done'),
    line('done', 'd1', 'user', 'Which queue do payment retries use?') +
      line('done', 'd2', 'assistant', 'They use the orders-worker queue, with a 30 second backoff.'),
  );
  writeFileSync(
    file('asking'),
    line('asking', 'a1', 'user', 'Should we pin the Stripe API version to 2025-01-15?'),
  );
  h.now.ms = Math.max(mtime('done'), mtime('asking')) + SETTLE_MS + 10; // both written and settled
  const { w, reads } = watcher(h);
  w.update({ env: h.env, scope: h.scope, sources: ['claude-code'] });
  await w.tick();
  assert.equal(reads(), 2, 'the first look reads both files');
  assert.deepEqual(chatLines(h.sent), [
    'user: Which queue do payment retries use?',
    'Claude Code: They use the orders-worker queue, with a 30 second backoff.',
  ]);
  for (const step of [200, 200, 200]) {
    h.now.ms += step;
    await w.tick();
  }
  assert.equal(reads(), 0, 'nothing changed and nothing can be learned yet: no file is read');
  assert.equal(h.sent.length, 1, "the person's last words wait for the answer");

  appendFileSync(
    file('asking'),
    line('asking', 'a2', 'assistant', 'Yes: pinned to 2025-01-15 in billing/config.ts.'),
  );
  h.now.ms = mtime('asking') + 200;
  await w.tick();
  assert.equal(reads(), 1, 'the changed file is read at the next look');
  assert.equal(h.sent.length, 1, 'an answer still being written is not learned');
  h.now.ms += 200;
  await w.tick();
  assert.equal(reads(), 0, 'nor read again before it can have settled');
  h.now.ms = mtime('asking') + SETTLE_MS + 10;
  await w.tick();
  assert.equal(reads(), 1, 'read once it has settled');
  assert.deepEqual(chatLines(h.sent.slice(1)), [
    'user: Should we pin the Stripe API version to 2025-01-15?',
    'Claude Code: Yes: pinned to 2025-01-15 in billing/config.ts.',
  ]);
});

test('a question left without an answer is learned once the session has been quiet for ten minutes', async () => {
  writeFileSync(file('left'), line('left', 'l1', 'user', 'We keep audit logs for 400 days, right?'));
  h.now.ms = mtime('left') + 100;
  const { w, reads } = watcher(h);
  w.update({ env: h.env, scope: h.scope, sources: ['claude-code'] });
  await w.tick();
  const before = h.sent.length;
  h.now.ms = mtime('left') + SETTLE_MS + 10;
  await w.tick();
  h.now.ms = mtime('left') + FINAL_QUIET_MS - 1000;
  await w.tick();
  assert.equal(h.sent.length, before, 'still waiting');
  h.now.ms = mtime('left') + FINAL_QUIET_MS + 10;
  await w.tick();
  assert.deepEqual(chatLines(h.sent.slice(before)), ['user: We keep audit logs for 400 days, right?']);
  reads();
  h.now.ms += 5000;
  await w.tick();
  assert.equal(reads(), 0, 'learned whole: not read again');
});

test('watching starts without reading again the files a capture already read whole', async () => {
  const { w, reads } = watcher(h);
  w.update({ env: h.env, scope: h.scope, sources: ['claude-code'] });
  await w.tick();
  assert.equal(reads(), 0, 'every file here was read whole by the watchers before');
  appendFileSync(file('done'), line('done', 'd3', 'user', 'Also: the retry cap is 5 attempts.'));
  appendFileSync(file('done'), line('done', 'd4', 'assistant', 'Noted, 5 attempts at most.'));
  h.now.ms = mtime('done') + SETTLE_MS + 10;
  const before = h.sent.length;
  await w.tick();
  assert.equal(reads(), 1, 'the changed file is read');
  assert.deepEqual(chatLines(h.sent.slice(before)), [
    'user: Also: the retry cap is 5 attempts.',
    'Claude Code: Noted, 5 attempts at most.',
  ]);
});

test('a file just written is read first and learned before older ones; those released by quiet time are not', async () => {
  const older = ['q1', 'q2', 'q3', 'q4'];
  for (const q of older) writeFileSync(file(q), line(q, `${q}-u`, 'user', `Is ${q} still the retry queue?`));
  h.now.ms = Math.max(...older.map(mtime)) + SETTLE_MS + 10;
  const { w, reads } = watcher(h);
  w.update({ env: h.env, scope: h.scope, sources: ['claude-code'] });
  await w.tick();
  reads();
  // Ten quiet minutes later the four unanswered questions are released, as a new session starts.
  h.now.ms = Math.max(...older.map(mtime)) + FINAL_QUIET_MS + 10;
  writeFileSync(
    file('now'),
    line('now', 'n1', 'user', 'We use the orders-fast queue from today.') +
      line('now', 'n2', 'assistant', 'Switched the retries to orders-fast.'),
  );
  utimesSync(file('now'), new Date(h.now.ms - SETTLE_MS - 10), new Date(h.now.ms - SETTLE_MS - 10));
  const before = h.sent.length;
  await w.tick();
  assert.equal(reads(), 5, 'all five read in one look');
  assert.deepEqual(
    chatLines(h.sent.slice(before, before + 1)),
    ['user: We use the orders-fast queue from today.', 'Claude Code: Switched the retries to orders-fast.'],
    'the session going on first',
  );
  assert.deepEqual(h.live.slice(before), [true, false, false, false, false], 'queued as live: only it');
});
