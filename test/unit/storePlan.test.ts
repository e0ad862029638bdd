import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  candidateIds,
  planAudit,
  planStore,
  type StoreContext,
  type StoreLookup,
} from '../../sidecar/ingest/storePlan';
import { GLOBAL_PROJECT, memoryId, type Memory } from '../../sidecar/model';
import type { Candidate } from '../../sidecar/pipeline/types';

const LIMIT = 0.15;
const NOW = '2026-03-01T12:00:00.000Z';
const THEN = '2026-01-01T00:00:00.000Z';

function memory(text: string, over: Partial<Memory> = {}): Memory {
  const project_id = over.project_id ?? 'p1';
  return {
    id: memoryId(project_id, text),
    text,
    category: 'instruction',
    source_type: 'chat',
    project_id,
    confidence_score: 0.8,
    is_actionable: true,
    source_ref: ['msg:old'],
    status: 'active',
    created_at: THEN,
    updated_at: THEN,
    last_seen_at: THEN,
    times_seen: 1,
    added_by: 'tester@ci',
    reason: 'rule:earlier',
    score: 6,
    embedding_model: 'test',
    embedding_dim: 2,
    use_count: 3,
    ...over,
  };
}

function candidate(text: string, over: Partial<Candidate> = {}): Candidate {
  return {
    text,
    category: 'instruction',
    source_type: 'chat',
    is_actionable: true,
    source_ref: ['msg:new'],
    message_ids: ['new'],
    reason: 'rule:operational-verb',
    score: 7,
    confidence: 0.8123,
    pending: false,
    ...over,
  };
}

function ctx(over: Partial<StoreContext> = {}): StoreContext {
  return {
    session: { project_id: 'p1', source_type: 'chat' },
    by: 'tester@ci',
    now: NOW,
    limit: LIMIT,
    embeddingModel: 'mini',
    ...over,
  };
}

/** What the look-up stage would have read: stored memories by id, the i-th candidate's near neighbour. */
function found(stored: Memory[] = [], nearest: [number, Memory, number][] = []): StoreLookup {
  return {
    byId: new Map(stored.map((m) => [m.id, m])),
    nearest: new Map(nearest.map(([i, m, distance]) => [i, { memory: m, distance }])),
  };
}

test('a new fact is stored once, as an active memory of the session with the fields the candidate gave', () => {
  const c = candidate('Set the retry limit to 5', { speaker: 'ana' });
  const plan = planStore([c], [[1, 0]], found(), ctx({ session: { ...ctx().session, source_ref: ['doc'] } }));
  assert.equal(plan.created.length, 1);
  const m = plan.created[0]!.memory;
  assert.equal(m.id, memoryId('p1', c.text));
  assert.deepEqual(
    [m.status, m.times_seen, m.confidence_score, m.tier, m.speaker, m.created_at, m.embedding_model],
    ['active', 1, 0.812, 'own-turn', 'ana', NOW, 'mini'],
  );
  assert.deepEqual(m.source_ref, ['msg:new', 'doc']);
  assert.deepEqual(plan.decisions, [
    {
      text: c.text,
      category: 'instruction',
      is_actionable: true,
      source_ref: ['msg:new'],
      score: 7,
      id: m.id,
      outcome: 'stored',
      reason: 'rule:operational-verb',
    },
  ]);
  assert.equal(plan.refreshed.size + plan.superseded.size + plan.contested.size + plan.replayed.size, 0);
});

test('the same text stored already is not stored twice: the stored memory is refreshed', () => {
  const stored = memory('Set the retry limit to 5');
  const plan = planStore([candidate(stored.text)], [[1, 0]], found([stored]), ctx());
  assert.equal(plan.created.length, 0);
  const r = plan.refreshed.get(stored.id)!;
  assert.equal(r.before, stored);
  assert.deepEqual(
    [r.after.times_seen, r.after.last_seen_at, r.after.updated_at, r.after.use_count, r.note],
    [2, NOW, NOW, 3, 'same text seen again'],
  );
  assert.deepEqual(r.after.source_ref, ['msg:old', 'msg:new']);
  assert.deepEqual(
    [plan.decisions[0]!.outcome, plan.decisions[0]!.id, plan.decisions[0]!.reason],
    ['refreshed', stored.id, `duplicate of ${stored.id} (same text)`],
  );
});

test('a near neighbour saying the same thing is refreshed, with the distance in the reason', () => {
  const near = memory('The retry limit is set to 5');
  const plan = planStore(
    [candidate('Set the retry limit to 5')],
    [[1, 0]],
    found([], [[0, near, 0.05]]),
    ctx(),
  );
  assert.equal(plan.created.length, 0);
  assert.equal(plan.refreshed.get(near.id)!.note, 'duplicate at cosine distance 0.050');
  assert.equal(plan.decisions[0]!.reason, `duplicate of ${near.id} (cosine distance 0.050 < ${LIMIT})`);
});

test('two identical candidates in one batch store one memory, seen twice', () => {
  const text = 'Set the retry limit to 5';
  const plan = planStore(
    [candidate(text), candidate(text)],
    [
      [1, 0],
      [1, 0],
    ],
    found(),
    ctx(),
  );
  assert.equal(plan.created.length, 1);
  assert.equal(plan.created[0]!.memory.times_seen, 2);
  assert.equal(plan.refreshed.size, 0, 'a memory of this batch is written once, by the upsert');
  assert.deepEqual(
    plan.decisions.map((d) => [d.outcome, d.id]),
    [
      ['stored', memoryId('p1', text)],
      ['refreshed', memoryId('p1', text)],
    ],
  );
});

test('a memory marked wrong is not resurrected: the same text or a near neighbour of it is dropped', () => {
  const wrong = memory('Set the retry limit to 5', { status: 'wrong' });
  for (const look of [found([wrong]), found([], [[0, wrong, 0.03]])]) {
    const plan = planStore([candidate(wrong.text)], [[1, 0]], look, ctx());
    assert.equal(plan.created.length + plan.refreshed.size, 0);
    assert.deepEqual(
      [plan.decisions[0]!.outcome, plan.decisions[0]!.id, plan.decisions[0]!.reason],
      ['dropped', wrong.id, `blocked: matches ${wrong.id}, which was marked wrong`],
    );
  }
});

test('a changed fact supersedes the memory it changes', () => {
  const older = memory('Set the retry limit to 3');
  const plan = planStore(
    [candidate('Set the retry limit to 5')],
    [[1, 0]],
    found([], [[0, older, 0.02]]),
    ctx(),
  );
  const m = plan.created[0]!.memory;
  assert.equal(m.status, 'active');
  assert.equal(m.supersedes, older.id);
  const s = plan.superseded.get(older.id)!;
  assert.deepEqual(
    [s.before.status, s.after.status, s.after.superseded_by, s.after.updated_at],
    ['active', 'superseded', m.id, NOW],
  );
  assert.equal(plan.decisions[0]!.outcome, 'stored');
  assert.match(plan.decisions[0]!.reason, new RegExp(`^rule:operational-verb; supersedes ${older.id} \\(`));
});

test('an unconfirmed change never demotes a confirmed or global memory: both wait for review', () => {
  for (const older of [
    memory('Set the retry limit to 3', { status: 'confirmed', confirmed_by: 'ana' }),
    memory('Set the retry limit to 3', { project_id: GLOBAL_PROJECT }),
  ]) {
    const plan = planStore(
      [candidate('Set the retry limit to 5')],
      [[1, 0]],
      found([], [[0, older, 0.02]]),
      ctx(),
    );
    const m = plan.created[0]!.memory;
    assert.deepEqual([m.status, m.may_change, m.supersedes], ['pending', older.id, undefined]);
    assert.equal(plan.superseded.size, 0);
    const c = plan.contested.get(older.id)!;
    assert.deepEqual([c.after.status, c.after.contested_by], [older.status, m.id]);
    assert.equal(plan.decisions[0]!.outcome, 'pending');
    assert.match(plan.decisions[0]!.reason, new RegExp(`pending: may change ${older.id} \\(`));
  }
});

test('a person confirming the change (remember) supersedes even a confirmed memory', () => {
  const older = memory('Set the retry limit to 3', { status: 'confirmed', confirmed_by: 'ana' });
  const plan = planStore(
    [candidate('Set the retry limit to 5')],
    [[1, 0]],
    found([], [[0, older, 0.02]]),
    ctx({ confirmedBy: 'bo' }),
  );
  const m = plan.created[0]!.memory;
  assert.deepEqual([m.status, m.confirmed_by, m.tier, m.supersedes], ['confirmed', 'bo', 'person', older.id]);
  assert.equal(plan.superseded.get(older.id)!.after.status, 'superseded');
});

test('a pending candidate changing a fact waits beside it instead of superseding it', () => {
  const older = memory('Set the retry limit to 3');
  const plan = planStore(
    [candidate('Set the retry limit to 5', { pending: true, pending_reason: 'an agent said it' })],
    [[1, 0]],
    found([], [[0, older, 0.02]]),
    ctx(),
  );
  assert.equal(plan.superseded.size, 0);
  assert.equal(plan.contested.get(older.id)!.after.contested_by, plan.created[0]!.memory.id);
  assert.equal(plan.decisions[0]!.outcome, 'pending');
  assert.doesNotMatch(plan.decisions[0]!.reason, /an agent said it/, 'the conflict is the reason it waits');
});

test('a later candidate of the batch changing an earlier one supersedes it', () => {
  const plan = planStore(
    [candidate('Set the retry limit to 3'), candidate('Set the retry limit to 5')],
    [
      [1, 0],
      [1, 0.01],
    ],
    found(),
    ctx(),
  );
  const [first, second] = plan.created.map((r) => r.memory);
  assert.equal(second!.supersedes, first!.id);
  assert.equal(plan.superseded.get(first!.id)!.after.superseded_by, second!.id);
});

test('an older value said again is in use again: it supersedes the value that had replaced it', () => {
  const current = memory('Set the retry limit to 3', { supersedes: '' });
  const older = memory('Set the retry limit to 5', {
    status: 'superseded',
    superseded_by: current.id,
    times_seen: 2,
  });
  const plan = planStore(
    [candidate('Set the retry limit to 5')],
    [[1, 0]],
    {
      ...found([older]),
      current: new Map([[older.id, current]]),
    },
    ctx(),
  );
  assert.equal(plan.created.length, 0, 'nothing new is stored');
  const r = plan.revived.get(older.id)!;
  assert.deepEqual(
    [r.after.status, r.after.superseded_by, r.after.supersedes, r.after.times_seen, r.after.last_seen_at],
    ['active', undefined, current.id, 3, NOW],
  );
  const s = plan.superseded.get(current.id)!;
  assert.deepEqual([s.after.status, s.after.superseded_by], ['superseded', older.id]);
  assert.equal(plan.decisions[0]!.outcome, 'refreshed');
  assert.match(plan.decisions[0]!.reason, /in use again/);
  const audit = planAudit(plan, ctx());
  assert.deepEqual(
    audit.map((e) => [e.action, e.memory_id]),
    [
      ['update', current.id],
      ['update', older.id],
    ],
  );
});

test('in one batch: a value changed and then changed back ends at the value said last', () => {
  const stored = memory('Set the retry limit to 5');
  const plan = planStore(
    [candidate('Set the retry limit to 3'), candidate('Set the retry limit to 5')],
    [
      [1, 0],
      [1, 0.01],
    ],
    found([stored], [[0, stored, 0.02]]),
    ctx(),
  );
  const three = plan.created[0]!.memory;
  assert.deepEqual([three.status, three.superseded_by], ['superseded', stored.id]);
  assert.equal(plan.superseded.has(stored.id), false, 'the stored value is never written as superseded');
  assert.deepEqual(
    [plan.revived.get(stored.id)!.after.status, plan.revived.get(stored.id)!.after.supersedes],
    ['active', three.id],
  );
});

test('said again without a person, an older value never demotes a confirmed one; a broken chain only refreshes', () => {
  const confirmed = memory('Set the retry limit to 3', { status: 'confirmed', confirmed_by: 'ana' });
  const older = memory('Set the retry limit to 5', { status: 'superseded', superseded_by: confirmed.id });
  for (const current of [new Map([[older.id, confirmed]]), new Map<string, Memory>()]) {
    const plan = planStore(
      [candidate('Set the retry limit to 5')],
      [[1, 0]],
      { ...found([older]), current },
      ctx(),
    );
    assert.equal(plan.revived.size, 0);
    assert.equal(plan.superseded.size, 0);
    assert.equal(plan.refreshed.get(older.id)!.after.status, 'superseded', 'only seen again');
  }
  // A person saying it (remember) decides it.
  const plan = planStore(
    [candidate('Set the retry limit to 5')],
    [[1, 0]],
    {
      ...found([older]),
      current: new Map([[older.id, confirmed]]),
    },
    ctx({ confirmedBy: 'ana' }),
  );
  assert.deepEqual(
    [plan.revived.get(older.id)!.after.status, plan.revived.get(older.id)!.after.confirmed_by],
    ['confirmed', 'ana'],
  );
  assert.equal(plan.superseded.get(confirmed.id)!.after.superseded_by, older.id);
});

test('a global memory seen again in a project keeps its own source refs', () => {
  const global = memory('Set the retry limit to 5', { project_id: GLOBAL_PROJECT });
  const plan = planStore(
    [candidate('Set the retry limit to 5')],
    [[1, 0]],
    found([], [[0, global, 0.01]]),
    ctx(),
  );
  const r = plan.refreshed.get(global.id)!;
  assert.deepEqual([r.after.times_seen, r.after.source_ref], [2, ['msg:old']]);
});

test('a capture replayed after a crash counts nothing twice: what its first attempt wrote is only reported', () => {
  const text = 'Set the retry limit to 5';
  const written = memory(text, { captures: 'cap-1', created_at: NOW, last_seen_at: NOW });
  const plan = planStore([candidate(text)], [[1, 0]], found([written]), ctx({ captureId: 'cap-1' }));
  assert.equal(plan.created.length + plan.refreshed.size, 0);
  assert.equal(plan.replayed.get(written.id), written);
  assert.deepEqual(
    [plan.decisions[0]!.outcome, plan.decisions[0]!.reason],
    ['stored', 'rule:operational-verb; written by an earlier attempt of this capture'],
  );
  // Another capture seeing the same text refreshes it, and records its own capture id.
  const other = planStore([candidate(text)], [[1, 0]], found([written]), ctx({ captureId: 'cap-2' }));
  assert.equal(other.refreshed.get(written.id)!.after.captures, 'cap-1 cap-2');
});

test('the audit entries: create, refresh, supersede, contest, in that order', () => {
  const stored = memory('Deploy with the staging script');
  const older = memory('Set the retry limit to 3');
  const vouched = memory('The API port is 8080', { status: 'confirmed', confirmed_by: 'ana' });
  const plan = planStore(
    [candidate('The API port is 9090'), candidate('Set the retry limit to 5'), candidate(stored.text)],
    [
      [0, -1],
      [1, 0],
      [0, 1],
    ],
    found(
      [stored],
      [
        [0, vouched, 0.02],
        [1, older, 0.02],
      ],
    ),
    ctx(),
  );
  const entries = planAudit(plan, ctx());
  const [waiting, newer] = plan.created.map((r) => r.memory);
  assert.deepEqual(
    entries.map((e) => [e.action, e.memory_id, e.note]),
    [
      ['create', waiting!.id, undefined],
      ['create', newer!.id, undefined],
      ['refresh', stored.id, 'same text seen again'],
      ['update', older.id, `superseded by ${newer!.id}: a newer value of the same fact`],
      ['update', vouched.id, `in review: ${waiting!.id} may change it (both wait for a decision)`],
    ],
  );
  assert.ok(entries.every((e) => e.at === NOW && e.by === 'tester@ci' && e.capture_id === undefined));
  assert.deepEqual(entries[2]!.changes, { times_seen: [1, 2], last_seen_at: [THEN, NOW] });
  assert.deepEqual(entries[3]!.changes, {
    status: ['active', 'superseded'],
    superseded_by: [undefined, newer!.id],
  });
});

test('candidate ids are the memory ids of the session project and the text', () => {
  assert.deepEqual(candidateIds('p1', [candidate('a'), candidate('b')]), [
    memoryId('p1', 'a'),
    memoryId('p1', 'b'),
  ]);
});
