import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Memory } from '../../sidecar/model';
import { tallyCounts } from '../../sidecar/counts';
import { describeScope, scopeCounts, treeCounts } from '../../src/views/counts';

type M = Pick<Memory, 'project_id' | 'status' | 'category' | 'source_type'>;
const m = (
  project_id: string,
  status: M['status'],
  category: M['category'] = 'instruction',
  source_type: M['source_type'] = 'manual',
): M => ({
  project_id,
  status,
  category,
  source_type,
});

const STORE: M[] = [
  m('acme', 'active'),
  m('acme', 'active'),
  m('acme', 'pending', 'persona', 'chat'),
  m('acme', 'wrong'),
  m('acme', 'archived', 'episodic', 'terminal'),
  m('global', 'confirmed', 'persona', 'chat'),
  m('old-repo', 'pending'),
  m('old-repo', 'active', 'episodic', 'terminal'),
  m('gone', 'wrong'),
];

test('the sidecar tallies memories per project, status, category and source, leaving out empty groups', () => {
  const r = tallyCounts(STORE);
  assert.equal(r.total, STORE.length);
  assert.equal(
    r.groups.reduce((n, g) => n + g.count, 0),
    STORE.length,
  );
  assert.deepEqual(
    r.groups.find((g) => g.project_id === 'acme' && g.status === 'active'),
    { project_id: 'acme', status: 'active', category: 'instruction', source_type: 'manual', count: 2 },
  );
  assert.equal(r.groups.length, 8, 'one group per distinct combination');
  assert.deepEqual(tallyCounts([]), { total: 0, groups: [] });
});

test('the tree counts only the statuses it lists, per category and per source', () => {
  const groups = tallyCounts(STORE.filter((x) => x.project_id === 'acme')).groups;
  const shown = treeCounts(groups, ['active', 'pending', 'confirmed', 'wrong']);
  assert.equal(shown.byCategory.get('instruction'), 3, 'two active and one wrong');
  assert.equal(shown.byCategory.get('persona'), 1);
  assert.equal(shown.byCategory.get('episodic'), undefined, 'the archived one is not shown');
  assert.equal(shown.bySource.get('persona')?.get('chat'), 1);
  const pendingOnly = treeCounts(groups, ['pending']);
  assert.deepEqual([...pendingOnly.byCategory], [['persona', 1]]);
});

test('status bar, badge and Other projects share one scope: the workspace projects, with the rest apart', () => {
  const s = scopeCounts(tallyCounts(STORE).groups, ['acme', 'global']);
  assert.deepEqual(s.workspace, [
    { projectId: 'acme', memories: 3, pending: 1 },
    { projectId: 'global', memories: 1, pending: 0 },
  ]);
  assert.equal(s.memories, 4, 'wrong and archived memories are not counted as memories');
  assert.equal(s.pending, 1, 'a pending memory of a project outside the workspace is not in the badge');
  assert.equal(s.retired, 2);
  assert.deepEqual(
    s.others,
    [{ projectId: 'old-repo', memories: 2, pending: 1 }],
    'a project with only wrong memories is not listed',
  );
});

test('a workspace project without memories still has its row, at zero', () => {
  const s = scopeCounts([], ['empty', 'global']);
  assert.deepEqual(
    s.workspace.map((p) => [p.projectId, p.memories]),
    [
      ['empty', 0],
      ['global', 0],
    ],
  );
  assert.equal(s.others.length, 0);
});

test('the scope is said in words, naming the projects counted and what is left out', () => {
  const s = scopeCounts(tallyCounts(STORE).groups, ['acme', 'global']);
  const label = (id: string) => (id === 'global' ? 'Global' : id.toUpperCase());
  assert.deepEqual(describeScope(s, label), [
    "4 memories in this workspace's projects (ACME, Global)",
    '1 waiting for review',
    '2 marked wrong or archived, not counted',
    '2 memories in 1 other project (under "Other projects")',
  ]);
  assert.deepEqual(describeScope(scopeCounts([], ['global']), label), [
    "0 memories in this workspace's projects (Global)",
    'nothing waiting for review',
  ]);
});
