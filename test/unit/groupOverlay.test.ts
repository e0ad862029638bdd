/**
 * A backlog's captures decided as one group (ingest/groupOverlay.ts) end as they would one after the
 * other: the same decisions, the same memories, the same audit entries. The store here is a map with the
 * look-up's rules (same id, nearest in the project and category under the limit, a superseded memory's
 * current value), so the test can read back what a plan wrote before the next capture is decided.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cosineDistance } from '../../sidecar/embed/vectors';
import { GroupOverlay } from '../../sidecar/ingest/groupOverlay';
import {
  candidateIds,
  CHANGE_KINDS,
  CHANGED_FIELDS,
  planAudit,
  planStore,
  type StoreContext,
  type StoreLookup,
  type StorePlan,
} from '../../sidecar/ingest/storePlan';
import { memoryId, type Memory } from '../../sidecar/model';
import type { Candidate } from '../../sidecar/pipeline/types';
import type { Neighbour } from '../../sidecar/store/memoryStore';

const LIMIT = 0.15;
const NOW = '2026-03-01T12:00:00.000Z';

interface Row {
  memory: Memory;
  vector: number[];
}

/** Reads as storeCandidates.ts `lookUp` does, from a map. */
function lookUp(
  rows: Map<string, Row>,
  project: string,
  cands: Candidate[],
  vectors: number[][],
): StoreLookup {
  const ids = candidateIds(project, cands);
  const byId = new Map(ids.flatMap((id) => (rows.has(id) ? [[id, rows.get(id)!.memory] as const] : [])));
  const currentOf = (m: Memory): Memory | undefined => {
    let at: Memory | undefined = m;
    for (let hop = 0; at?.status === 'superseded' && hop < 8; hop++)
      at = at.superseded_by ? rows.get(at.superseded_by)?.memory : undefined;
    return at && at.status !== 'superseded' ? at : undefined;
  };
  const current = new Map(
    [...byId.values()].flatMap((m) => {
      const now = m.status === 'superseded' ? currentOf(m) : undefined;
      return now ? [[m.id, now] as const] : [];
    }),
  );
  const nearest = new Map<number, Neighbour>();
  cands.forEach((c, i) => {
    if (byId.has(ids[i]!)) return;
    const near = [...rows.values()]
      .filter((r) => r.memory.project_id === project && r.memory.category === c.category)
      .map((r) => ({ memory: r.memory, distance: cosineDistance(r.vector, vectors[i]!) }))
      .sort((a, b) => a.distance - b.distance)
      .slice(0, 3)
      .filter((h) => h.distance < LIMIT);
    const chosen = near.find((h) => h.memory.status !== 'superseded') ?? near[0];
    if (!chosen) return;
    const now = chosen.memory.status === 'superseded' ? currentOf(chosen.memory) : undefined;
    nearest.set(i, now ? { memory: now, distance: chosen.distance } : chosen);
  });
  return { byId, nearest, current };
}

/** Writes a plan as storeCandidates.ts `applyPlans` does: new memories whole, changes by their fields. */
function apply(rows: Map<string, Row>, plan: StorePlan): void {
  for (const r of plan.created) rows.set(r.memory.id, { memory: r.memory, vector: r.vector });
  for (const kind of CHANGE_KINDS)
    for (const [id, c] of plan[kind]) {
      const row = rows.get(id)!;
      const picked = Object.fromEntries(CHANGED_FIELDS[kind].map((f) => [f, c.after[f]]));
      rows.set(id, { ...row, memory: { ...row.memory, ...picked } });
    }
}

function candidate(text: string, message: string, over: Partial<Candidate> = {}): Candidate {
  return {
    text,
    category: 'instruction',
    source_type: 'chat',
    is_actionable: true,
    source_ref: [`msg:${message}`],
    message_ids: [message],
    reason: 'rule:operational-verb',
    score: 7,
    confidence: 0.8,
    pending: false,
    ...over,
  };
}

function ctx(captureId: string): StoreContext {
  return {
    session: { project_id: 'shop', source_type: 'chat' },
    by: 'tester@ci',
    now: NOW,
    limit: LIMIT,
    embeddingModel: 'test',
    captureId,
  };
}

const unit = (deg: number): number[] => [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];

/** Four captures of one backlog: a fact, said again, near-repeated, changed, and its old value said again. */
const SESSIONS: { captureId: string; cands: Candidate[]; vectors: number[][] }[] = [
  {
    captureId: 'cap-1',
    cands: [candidate('Set the retry limit of the payment worker to 5.', 'a1')],
    vectors: [unit(0)],
  },
  {
    captureId: 'cap-2',
    cands: [
      candidate('Set the retry limit of the payment worker to 5.', 'b1'),
      candidate('Run the migrations with pnpm db:migrate before the tests.', 'b2'),
    ],
    vectors: [unit(0), unit(90)],
  },
  {
    captureId: 'cap-3',
    cands: [
      candidate('Run the database migrations with pnpm db:migrate before the tests.', 'c1'),
      candidate('Set the retry limit of the payment worker to 8.', 'c2'),
    ],
    vectors: [unit(92), unit(3)],
  },
  {
    captureId: 'cap-4',
    cands: [
      candidate('Set the retry limit of the payment worker to 5.', 'd1'),
      candidate('Set the retry limit of the payment worker to 8.', 'd2', { pending: true }),
    ],
    vectors: [unit(0), unit(3)],
  },
];

const seeded = (): Map<string, Row> => {
  const old: Memory = {
    id: memoryId('shop', 'Deploy with ./scripts/deploy.sh, never by hand.'),
    text: 'Deploy with ./scripts/deploy.sh, never by hand.',
    category: 'instruction',
    source_type: 'chat',
    project_id: 'shop',
    confidence_score: 0.8,
    is_actionable: true,
    source_ref: ['msg:old'],
    status: 'confirmed',
    confirmed_by: 'ana',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    last_seen_at: '2026-01-01T00:00:00.000Z',
    times_seen: 1,
    added_by: 'ana',
    reason: 'remember',
    score: 8,
    embedding_model: 'test',
    embedding_dim: 2,
    use_count: 0,
  };
  return new Map([[old.id, { memory: old, vector: unit(45) }]]);
};

test('captures decided as one group end as they would one after the other', () => {
  // One after the other: each capture reads what the ones before it wrote.
  const one = seeded();
  const alone = SESSIONS.map((s) => {
    const plan = planStore(s.cands, s.vectors, lookUp(one, 'shop', s.cands, s.vectors), ctx(s.captureId));
    apply(one, plan);
    return plan;
  });
  // As a group: every capture read before any is written, the plans before it laid over what it read.
  const group = seeded();
  const read = SESSIONS.map((s) => lookUp(group, 'shop', s.cands, s.vectors));
  const overlay = new GroupOverlay();
  const together = SESSIONS.map((s, k) => {
    const plan = planStore(
      s.cands,
      s.vectors,
      overlay.lookup(read[k]!, 'shop', s.cands, s.vectors, LIMIT),
      ctx(s.captureId),
    );
    overlay.absorb(plan);
    return plan;
  });
  for (const plan of together) apply(group, plan);

  const outcomes = (plans: StorePlan[]) => plans.map((p) => p.decisions.map((d) => `${d.outcome} ${d.id}`));
  assert.deepEqual(outcomes(together), outcomes(alone));
  // The story the captures tell: stored, seen again, a paraphrase seen again, changed, the old value back.
  assert.deepEqual(
    alone.map((p) => p.decisions.map((d) => d.outcome)),
    [['stored'], ['refreshed', 'stored'], ['refreshed', 'stored'], ['refreshed', 'refreshed']],
  );
  assert.deepEqual(
    [...group.values()].map((r) => r.memory).sort((a, b) => a.id.localeCompare(b.id)),
    [...one.values()].map((r) => r.memory).sort((a, b) => a.id.localeCompare(b.id)),
    'the same memories, field for field',
  );
  const five = group.get(memoryId('shop', 'Set the retry limit of the payment worker to 5.'))!.memory;
  assert.equal(five.status, 'active', 'said again after the change: in use again');
  assert.equal(five.times_seen, 3);
  assert.deepEqual(five.captures?.split(' '), ['cap-1', 'cap-2', 'cap-4']);
  const audit = (plans: StorePlan[]) =>
    plans.flatMap((p, k) => planAudit(p, ctx(SESSIONS[k]!.captureId)).map((e) => ({ ...e, k })));
  assert.deepEqual(audit(together), audit(alone), 'the same audit entries, each with its capture');
});

test('a memory the group created is found by a later capture that repeats it in other words', () => {
  const overlay = new GroupOverlay();
  const first = planStore(
    [candidate('Run the migrations with pnpm db:migrate before the tests.', 'a1')],
    [unit(10)],
    lookUp(new Map(), 'shop', [], []),
    ctx('cap-1'),
  );
  overlay.absorb(first);
  const later = [candidate('Run the database migrations with pnpm db:migrate before the tests.', 'b1')];
  const seen = overlay.lookup({ byId: new Map(), nearest: new Map() }, 'shop', later, [unit(11)], LIMIT);
  assert.equal(seen.nearest.get(0)?.memory.id, first.created[0]!.memory.id);
  const plan = planStore(later, [unit(11)], seen, ctx('cap-2'));
  assert.equal(plan.decisions[0]!.outcome, 'refreshed');
  assert.equal(plan.created.length, 0, 'not a second memory');
  // Another category, or another project: not the same fact.
  const other = overlay.lookup(
    { byId: new Map(), nearest: new Map() },
    'shop',
    [candidate('Run the migrations with pnpm db:migrate before the tests.', 'c1', { category: 'persona' })],
    [unit(10)],
    LIMIT,
  );
  assert.equal(other.nearest.size, 0);
});
