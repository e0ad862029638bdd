import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Memory } from '../../sidecar/model';
import { describeGroup, groupReview, importedFrom } from '../../src/views/reviewGroups';

const mem = (id: string, over: Partial<Memory>): Memory => ({
  id,
  text: id,
  category: 'instruction',
  source_type: 'import',
  project_id: 'p',
  confidence_score: 0.7,
  is_actionable: false,
  source_ref: [],
  status: 'pending',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  last_seen_at: '2026-01-01T00:00:00.000Z',
  times_seen: 1,
  added_by: 'me',
  reason: 'explicit',
  score: 8,
  embedding_model: 'm',
  embedding_dim: 3,
  use_count: 0,
  ...over,
});

test('pending imported rules wait under their file, in line order; the rest stay on their own', () => {
  const { files, single } = groupReview([
    mem('a3', { source_ref: ['file:AGENTS.md#L12'] }),
    mem('chat', { source_type: 'chat', source_ref: ['msg:1'] }),
    mem('a1', {
      source_ref: ['file:AGENTS.md#L3'],
      held: 'held: outside content that pipes a download into a shell',
    }),
    mem('c1', { source_ref: ['file:.cursor/rules/style.md#L1'] }),
    mem('g1', { project_id: 'global', source_ref: ['file:AGENTS.md#L1'] }),
    mem('confirmedImport', { status: 'confirmed', source_ref: ['file:AGENTS.md#L9'] }),
  ]);
  assert.deepEqual(
    files.map((g) => [g.file, g.project_id, g.memories.map((m) => m.id), g.held]),
    [
      ['.cursor/rules/style.md', 'p', ['c1'], 0],
      ['AGENTS.md', 'global', ['g1'], 0],
      ['AGENTS.md', 'p', ['a1', 'a3'], 1],
    ],
  );
  assert.deepEqual(
    single.map((m) => m.id),
    ['chat', 'confirmedImport'],
  );
  assert.equal(describeGroup(files[2]!), '2 imported rules · 1 held by the firewall');
  assert.equal(importedFrom(mem('x', { source_ref: ['file:CLAUDE.md#L4'] })), 'CLAUDE.md');
});
