import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RefreshGate, type PendingChange, type Timers } from '../../src/views/refreshGate';

/** A clock the test moves by hand; due timers fire in order as it passes them. */
function fakeTimers(): Timers & { advance(ms: number): void } {
  let now = 0;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout: (fn, ms) => {
      due.set(++seq, { at: now + ms, fn });
      return seq;
    },
    clearTimeout: (h) => void due.delete(h as number),
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const next = [...due].sort((a, b) => a[1].at - b[1].at)[0];
        if (!next || next[1].at > end) break;
        due.delete(next[0]);
        now = next[1].at;
        next[1].fn();
      }
      now = end;
    },
  };
}

const show = (w: PendingChange) => (w === 'all' ? 'all' : [...w].sort().join(','));

test('a single change (a person confirming one memory) reloads the views after the short quiet window', () => {
  const t = fakeTimers();
  const runs: string[] = [];
  const gate = new RefreshGate((w) => runs.push(show(w)), 50, 1000, t);
  gate.request(['p1']);
  t.advance(49);
  assert.deepEqual(runs, []);
  t.advance(1);
  assert.deepEqual(runs, ['p1']);
});

test('a burst of changes (one per learned session) reloads at most once per interval, and the last change is never lost', () => {
  const t = fakeTimers();
  const runs: { at: number; what: string }[] = [];
  const gate = new RefreshGate((w) => runs.push({ at: t.now(), what: show(w) }), 50, 1000, t);
  // 40 changes, one every 100 ms, to two projects; then silence.
  for (let i = 0; i < 40; i++) {
    gate.request([i % 2 ? 'p1' : 'p2']);
    t.advance(100);
  }
  t.advance(5000);
  // 4 s of changes: the first reload after 50 ms, then one per second, then one for the tail.
  assert.ok(runs.length <= 6, `${runs.length} reloads: ${JSON.stringify(runs)}`);
  for (let i = 1; i < runs.length; i++) assert.ok(runs[i].at - runs[i - 1].at >= 1000);
  // The last change (at 3.9 s) was reloaded after it happened.
  assert.ok(runs[runs.length - 1].at >= 3900);
  assert.equal(gate.waiting, false);
});

test('changes merged into one reload keep every project, and "everything" wins over a list', () => {
  const t = fakeTimers();
  const runs: string[] = [];
  const gate = new RefreshGate((w) => runs.push(show(w)), 50, 1000, t);
  gate.request(['a']);
  gate.request(['b', 'a']);
  t.advance(60);
  gate.request(['c']);
  gate.request(['d']);
  t.advance(2000);
  gate.request(['e']);
  gate.request();
  gate.request(['f']);
  t.advance(2000);
  assert.deepEqual(runs, ['a,b', 'c,d', 'all']);
});

test('a disposed gate never reloads', () => {
  const t = fakeTimers();
  const runs: string[] = [];
  const gate = new RefreshGate((w) => runs.push(show(w)), 50, 1000, t);
  gate.request(['a']);
  gate.dispose();
  t.advance(5000);
  assert.deepEqual(runs, []);
});

test('revealing a memory applies a due reload at once, and only once', () => {
  const t = fakeTimers();
  const runs: string[] = [];
  const gate = new RefreshGate((w) => runs.push(show(w)), 50, 1000, t);
  gate.request(['p1']);
  t.advance(50);
  gate.request(['p2']); // due a second after the first reload
  t.advance(100);
  gate.flushNow();
  assert.deepEqual(runs, ['p1', 'p2']);
  assert.equal(gate.waiting, false);
  t.advance(2000);
  assert.deepEqual(runs, ['p1', 'p2']);
  gate.flushNow(); // nothing due: nothing runs
  assert.deepEqual(runs, ['p1', 'p2']);
});
