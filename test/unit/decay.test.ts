import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addMonthsUtc, fullMonthsBetween, futureAsOfError, planDecay } from '../../sidecar/lifecycle/decay';
import { memoryId, type Memory } from '../../sidecar/model';

function mem(text: string, confidence: number, created: string, extra: Partial<Memory> = {}): Memory {
  return {
    id: memoryId('p', text),
    text,
    category: 'instruction',
    source_type: 'chat',
    project_id: 'p',
    confidence_score: confidence,
    is_actionable: false,
    source_ref: [],
    status: 'active',
    created_at: created,
    updated_at: created,
    last_seen_at: created,
    times_seen: 1,
    added_by: 't',
    reason: 'r',
    score: 5,
    embedding_model: 'm',
    embedding_dim: 3,
    use_count: 0,
    ...extra,
  };
}

const T0 = '2026-01-15T10:00:00.000Z';

test('decay applies 0.95 per full month: 1, 2 and 13 months', () => {
  for (const [asOf, months] of [
    ['2026-02-15T10:00:00.000Z', 1],
    ['2026-03-20T00:00:00.000Z', 2],
    ['2027-02-15T10:00:00.000Z', 13],
  ] as const) {
    const [step] = planDecay([mem('a', 0.8, T0)], new Date(asOf));
    assert.equal(step.months, months, asOf);
    assert.ok(Math.abs(step.after - 0.8 * 0.95 ** months) < 1e-4, `${asOf}: ${step.after}`);
  }
  assert.deepEqual(
    planDecay([mem('a', 0.8, T0)], new Date('2026-02-15T09:59:59.000Z')),
    [],
    'less than a full month: nothing',
  );
});

test('applying a plan moves the anchor by whole months, so the same month is never applied twice', () => {
  const m = mem('a', 0.8, T0);
  const asOf = new Date('2026-03-20T00:00:00.000Z');
  const [step] = planDecay([m], asOf);
  const applied = { ...m, confidence_score: step.after, decayed_through: step.anchor };
  assert.equal(step.anchor, '2026-03-15T10:00:00.000Z');
  assert.deepEqual(planDecay([applied], asOf), [], 'a second run (after a restart) changes nothing');
  const [next] = planDecay([applied], new Date('2026-04-15T10:00:00.000Z'));
  assert.equal(next.months, 1);
  assert.ok(Math.abs(next.after - 0.8 * 0.95 ** 3) < 1e-4);
});

test('under the floor a memory is archived, tombstones and archived memories are left alone', () => {
  const steps = planDecay(
    [
      mem('low', 0.105, T0),
      mem('wrong', 0, T0, { status: 'wrong' }),
      mem('old', 0.05, T0, { status: 'archived' }),
    ],
    new Date('2026-02-16T00:00:00.000Z'),
  );
  assert.equal(steps.length, 1);
  assert.equal(steps[0].archive, true);
  assert.ok(steps[0].after < 0.1);
});

test('confirmed and recently used memories decay slower', () => {
  const asOf = new Date('2026-03-15T10:00:00.000Z');
  const [plain, confirmed, used] = planDecay(
    [
      mem('p', 0.8, T0),
      mem('c', 0.8, T0, { status: 'confirmed' }),
      mem('u', 0.8, T0, { last_used_at: '2026-03-10T00:00:00.000Z', use_count: 2 }),
    ],
    asOf,
  );
  assert.ok(confirmed.after > plain.after);
  assert.ok(used.after > plain.after);
  assert.ok(Math.abs(confirmed.after - 0.8 * 0.98 ** 2) < 1e-4);
});

test('month arithmetic is UTC and clamps month ends', () => {
  assert.equal(addMonthsUtc('2026-01-31T12:00:00.000Z', 1).toISOString(), '2026-02-28T12:00:00.000Z');
  assert.equal(fullMonthsBetween('2026-01-31T12:00:00.000Z', new Date('2026-02-28T12:00:00.000Z')), 1);
  assert.equal(fullMonthsBetween('2026-01-31T12:00:00.000Z', new Date('2026-02-28T11:59:59.000Z')), 0);
});

test('decay refuses an as-of date in the future (beyond a day of slack), in one sentence', () => {
  const now = new Date('2026-12-01T08:00:00Z');
  assert.equal(futureAsOfError(new Date('2026-12-01T00:00:00Z'), now), undefined);
  assert.equal(
    futureAsOfError(new Date('2026-12-02T00:00:00Z'), now),
    undefined,
    'tomorrow in UTC is today somewhere',
  );
  assert.equal(futureAsOfError(new Date('2020-01-01T00:00:00Z'), now), undefined);
  assert.equal(
    futureAsOfError(new Date('2100-01-01T00:00:00Z'), now),
    'Decay cannot run as of 2100-01-01, which is in the future; use today or an earlier date.',
  );
});
