import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  notStored,
  planImport,
  type ImportContext,
  type ImportItem,
  type ImportLookup,
} from '../../sidecar/ingest/importPlan';
import { memoryId, type Memory } from '../../sidecar/model';
import { storedMemory } from '../support/memoryFixture';
import type { BulkImportMemory } from '../../sidecar/protocol';

const LIMIT = 0.15;
const NOW = '2026-03-01T12:00:00.000Z';
const CTX: ImportContext = { now: NOW, user: 'tester@ci', embeddingModel: 'mini', limit: LIMIT };

function item(
  text: string,
  over: Partial<BulkImportMemory> = {},
  vector = [1, 0],
): { b: ImportItem; vector: number[] } {
  const m: BulkImportMemory = { text, project_id: 'p1', ...over };
  return { b: { m, text, id: memoryId(m.project_id, text), category: m.category ?? 'instruction' }, vector };
}

function memory(text: string, over: Partial<Memory> = {}): Memory {
  return storedMemory({
    id: memoryId('p1', text),
    text,
    source_type: 'import',
    confidence_score: 0.8,
    reason: 'bulk import',
    embedding_model: 'mini',
    ...over,
  });
}

function found(stored: Memory[] = [], nearest: [string, Memory, number][] = []): ImportLookup {
  return {
    stored: new Map(stored.map((m) => [m.id, m])),
    nearest: new Map(nearest.map(([id, m, distance]) => [id, { memory: m, distance }])),
  };
}

test('a new memory is imported as an active memory of its project, with its own created time (else now)', () => {
  const plan = planImport(
    [item('Run the tests on port 8080', { created_at: '2025-05-05', source_type: 'manual' })],
    found(),
    CTX,
  );
  assert.deepEqual([plan.duplicates, plan.blocked, plan.records.length], [0, 0, 1]);
  const m = plan.records[0]!.memory;
  assert.deepEqual(
    [m.id, m.status, m.project_id, m.source_type, m.created_at, m.last_seen_at, m.updated_at, m.times_seen],
    [
      memoryId('p1', 'Run the tests on port 8080'),
      'active',
      'p1',
      'manual',
      '2025-05-05T00:00:00.000Z',
      '2025-05-05T00:00:00.000Z',
      NOW,
      1,
    ],
  );
  assert.deepEqual(
    [m.reason, m.added_by, m.embedding_model, m.embedding_dim, m.is_actionable],
    ['bulk import', 'tester@ci', 'mini', 2, true],
  );
  assert.equal(planImport([item('A fact')], found(), CTX).records[0]!.memory.created_at, NOW);
});

test('a text stored already is a duplicate, not imported again; one marked wrong is counted as blocked', () => {
  const stored = memory('Use pnpm for installs');
  const wrong = memory('The API port is 8080', { status: 'wrong' });
  const plan = planImport([item(stored.text), item(wrong.text)], found([stored, wrong]), CTX);
  assert.deepEqual([plan.records.length, plan.duplicates, plan.blocked], [0, 1, 1]);
});

test("every stored memory the look-up found counts, also those of the window's read outside the batch", () => {
  const plan = planImport([item('A new fact')], found([memory('x'), memory('y')]), CTX);
  assert.deepEqual([plan.records.length, plan.duplicates], [1, 2]);
});

test('a near neighbour saying the same thing is a duplicate; one marked wrong blocks the item', () => {
  const it = item('Set the retry limit to 5');
  const near = memory('The retry limit is set to 5');
  assert.deepEqual(
    (({ records, duplicates, blocked }) => [records.length, duplicates, blocked])(
      planImport([it], found([], [[it.b.id, near, 0.05]]), CTX),
    ),
    [0, 1, 0],
  );
  const wrong = { ...near, status: 'wrong' as const };
  assert.equal(planImport([it], found([], [[it.b.id, wrong, 0.05]]), CTX).blocked, 1);
});

test('a changed fact is imported beside the memory it changes: the backup kept both', () => {
  const it = item('Set the retry limit to 5');
  const older = memory('Set the retry limit to 3');
  const plan = planImport([it], found([], [[it.b.id, older, 0.02]]), CTX);
  assert.equal(plan.records.length, 1);
  const m = plan.records[0]!.memory;
  assert.deepEqual([m.status, m.supersedes, m.may_change], ['active', undefined, undefined]);
});

test('two items of a batch saying the same thing import once', () => {
  const plan = planImport(
    [item('Set the retry limit to 5', {}, [1, 0]), item('The retry limit is set to 5', {}, [1, 0.02])],
    found(),
    CTX,
  );
  assert.deepEqual([plan.records.length, plan.duplicates], [1, 1]);
  // In another project (or category) they are two memories.
  const apart = planImport(
    [
      item('Set the retry limit to 5', {}, [1, 0]),
      item('The retry limit is set to 5', { project_id: 'p2' }, [1, 0.02]),
    ],
    found(),
    CTX,
  );
  assert.equal(apart.records.length, 2);
});

test('a neighbour at the dedup distance or farther decides nothing', () => {
  const it = item('Set the retry limit to 5');
  const plan = planImport([it], found([], [[it.b.id, memory('The retry limit is set to 5'), LIMIT]]), CTX);
  assert.equal(plan.records.length, 1);
});

test('the items deduplicated by their vectors are those whose text is not stored', () => {
  const a = item('a');
  const b = item('b');
  assert.deepEqual(notStored([a, b], found([memory('a')]).stored), [b]);
});
