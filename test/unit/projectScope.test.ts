import assert from 'node:assert/strict';
import { test } from 'node:test';
import { projectScope } from '../../sidecar/store/projectScope';

void test('a listing of a project shows that project; a search of it finds Global too; include_global decides when given', () => {
  assert.deepEqual(projectScope({ project_id: 'web' }, false), ['web']);
  assert.deepEqual(projectScope({ project_id: 'web' }, true), ['web', 'global']);
  assert.deepEqual(projectScope({ project_id: 'web', include_global: true }, false), ['web', 'global']);
  assert.deepEqual(projectScope({ project_id: 'web', include_global: false }, true), ['web']);
  assert.deepEqual(projectScope({ project_ids: ['web', 'api', 'web'], project_id: 'x' }, true), [
    'web',
    'api',
    'global',
  ]);
  assert.equal(projectScope({}, true), undefined, 'no project: every project');
});
