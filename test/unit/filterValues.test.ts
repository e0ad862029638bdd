import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidInputError } from '../../sidecar/shared/errors';
import { buildWhere } from '../../sidecar/store/where';

type Filter = Parameters<typeof buildWhere>[0];

test('a filter value that is an operator object is refused, so no query can reach other projects', () => {
  const hostile: unknown[] = [
    { project_id: { $ne: 'mine' } },
    { project_ids: [{ $ne: 'x' }] },
    { project_ids: 'all' },
    { status: [{ $nin: ['wrong'] }] },
    { status: 'active' },
    { category: { $exists: true } },
    { source_type: 'nonsense' },
    { since: { $gt: 0 } },
    { until: 'not a date' },
    { max_confidence: '0.5' },
    { min_confidence: { $gt: 0 } },
    { is_actionable: { $ne: false } },
  ];
  for (const f of hostile) {
    assert.throws(
      () => buildWhere(f as Filter),
      (e: unknown) =>
        e instanceof InvalidInputError && /^The filter's [a-z_]+ must be [^.]+\.$/.test(e.message),
      JSON.stringify(f),
    );
  }
});

test('plain values still build the same where clauses', () => {
  assert.deepEqual(buildWhere({ project_id: 'p' }), { project_id: 'p' });
  assert.deepEqual(buildWhere({ project_ids: ['p', 'global'], status: ['active', 'confirmed'] }), {
    $and: [{ project_id: { $in: ['p', 'global'] } }, { status: { $in: ['active', 'confirmed'] } }],
  });
  assert.equal(buildWhere({}), undefined);
});
