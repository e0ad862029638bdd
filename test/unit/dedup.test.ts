import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideDedup, type DedupCandidate } from '../../sidecar/ingest/dedup';
import type { Memory } from '../../sidecar/model';
import { storedMemory } from '../support/memoryFixture';

const LIMIT = 0.15;

function memory(id: string, over: Partial<Memory> = {}): Memory {
  // The same fact as the default candidate, worded a little differently.
  return storedMemory({ id, text: 'The retry limit is set to 5', source_type: 'manual', ...over });
}

function candidate(over: Partial<DedupCandidate> = {}): DedupCandidate {
  return {
    id: 'new',
    text: 'Set the retry limit to 5',
    category: 'instruction',
    project_id: 'p1',
    vector: [1, 0],
    ...over,
  };
}

test('a candidate nothing resembles is new', () => {
  assert.deepEqual(decideDedup(candidate(), {}, LIMIT), { kind: 'new' });
  const far = { memory: memory('m1'), distance: 0.4 };
  assert.deepEqual(decideDedup(candidate(), { neighbour: far }, LIMIT), { kind: 'new' });
});

test('the same text stored is a duplicate at distance 0, even when a neighbour is nearer in another memory', () => {
  const stored = memory('new');
  const d = decideDedup(
    candidate(),
    { sameId: stored, neighbour: { memory: memory('m2'), distance: 0.01 } },
    LIMIT,
  );
  assert.deepEqual(d, { kind: 'duplicate', of: stored, distance: 0, via: 'same-id' });
});

test('a neighbour under the limit is a duplicate; at the limit it is not', () => {
  const m = memory('m1');
  assert.deepEqual(decideDedup(candidate(), { neighbour: { memory: m, distance: 0.1 } }, LIMIT), {
    kind: 'duplicate',
    of: m,
    distance: 0.1,
    via: 'neighbour',
  });
  assert.equal(decideDedup(candidate(), { neighbour: { memory: m, distance: LIMIT } }, LIMIT).kind, 'new');
});

test('a match marked wrong blocks the candidate, whichever way it was found', () => {
  const wrong = memory('m1', { status: 'wrong' });
  assert.equal(decideDedup(candidate(), { sameId: wrong }, LIMIT).kind, 'blocked');
  assert.equal(
    decideDedup(candidate(), { neighbour: { memory: wrong, distance: 0.05 } }, LIMIT).kind,
    'blocked',
  );
  assert.equal(
    decideDedup(candidate(), { earlier: [{ memory: wrong, vector: [1, 0] }] }, LIMIT).kind,
    'blocked',
  );
});

test('a memory marked wrong blocks what it says, not the corrected value of the same fact', () => {
  const wrong = memory('m1', { status: 'wrong', text: 'The payment gateway timeout is 1500 ms' });
  const near = (text: string) =>
    decideDedup(candidate({ text }), { neighbour: { memory: wrong, distance: 0.03 } }, LIMIT).kind;
  assert.equal(near('The payment gateway timeout is 3000 ms'), 'new', 'the correction is learned');
  assert.equal(near('The payment gateway timeout is 1500 ms.'), 'blocked', 'the same words again');
  // The same text is blocked whatever it says (its id is the tombstone's).
  assert.equal(decideDedup(candidate(), { sameId: wrong }, LIMIT).kind, 'blocked');
});

test('an earlier memory of the batch counts only in the same project and category, by cosine distance', () => {
  const same = { memory: memory('e1'), vector: [1, 0.05] };
  const otherCategory = { memory: memory('e2', { category: 'persona' }), vector: [1, 0] };
  const otherProject = { memory: memory('e3', { project_id: 'p2' }), vector: [1, 0] };
  const orthogonal = { memory: memory('e4'), vector: [0, 1] };
  assert.equal(
    decideDedup(candidate(), { earlier: [otherCategory, otherProject, orthogonal] }, LIMIT).kind,
    'new',
  );
  const d = decideDedup(candidate(), { earlier: [otherCategory, same] }, LIMIT);
  assert.equal(d.kind, 'duplicate');
  assert.equal(d.kind === 'duplicate' && d.of.id, 'e1');
  assert.equal(d.kind === 'duplicate' && d.via, 'batch');
  assert.ok(d.kind === 'duplicate' && d.distance > 0 && d.distance < LIMIT);
});

test('an earlier memory with the candidate id is the same text (distance 0), whatever the vectors', () => {
  const d = decideDedup(candidate(), { earlier: [{ memory: memory('new'), vector: [0, 1] }] }, LIMIT);
  assert.deepEqual(d.kind === 'duplicate' && [d.distance, d.via], [0, 'batch']);
});

test('a stored neighbour wins over an earlier memory of the batch', () => {
  const n = memory('stored');
  const d = decideDedup(
    candidate(),
    { neighbour: { memory: n, distance: 0.1 }, earlier: [{ memory: memory('e1'), vector: [1, 0] }] },
    LIMIT,
  );
  assert.equal(d.kind === 'duplicate' && d.of.id, 'stored');
});

test('near-duplicate text with another value is an update, not a duplicate: the newer supersedes the older', () => {
  const near = { memory: memory('m1', { text: 'Set the retry limit to 3' }), distance: 0.02 };
  const d = decideDedup(candidate(), { neighbour: near }, LIMIT);
  assert.equal(d.kind, 'update');
  assert.equal(d.kind === 'update' && d.of.id, 'm1');
});

test('the same text (same id) is always the same fact', () => {
  const same = memory('new', { text: 'Set the retry limit to 5' });
  assert.equal(decideDedup(candidate(), { sameId: same }, LIMIT).kind, 'duplicate');
});
