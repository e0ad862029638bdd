import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Memory } from '../../sidecar/model';
import { describeGroup, groupImports, groupReview, importedFrom } from '../../src/views/reviewGroups';

const m = (id: string, score: number, refs: string[], extra: Partial<Memory> = {}): Memory =>
  ({
    id,
    text: id,
    score,
    source_ref: refs,
    category: 'instruction',
    source_type: 'chat',
    created_at: '2026-10-01T00:00:00.000Z',
    status: 'pending',
    ...extra,
  }) as Memory;

const queue = [
  m('low', 2, ['agent:codex', 'session:codex:t1']),
  m('mine', 6, ['agent:claude-code', 'session:claude-code:s1']),
  m('agent-said', 6, ['agent:claude-code', 'session:claude-code:s1'], { speaker: 'Claude Code' }),
  m('typed', 5, ['chat:@mnemo'], { category: 'persona' }),
];

test("ranked: the most valuable first, the person's words before the agent's at the same value", () => {
  const [g] = groupReview(queue, 'ranked');
  assert.deepEqual(
    g!.memories.map((x) => x.id),
    ['mine', 'agent-said', 'typed', 'low'],
  );
});

test('grouped by session, by agent and by topic, the most valuable group first', () => {
  assert.deepEqual(
    groupReview(queue, 'session').map((g) => [g.label.split(' ')[0], g.memories.length]),
    [
      ['Claude', 2],
      ['Not', 1],
      ['Codex', 1],
    ],
  );
  assert.deepEqual(
    groupReview(queue, 'agent').map((g) => g.label),
    ['Claude Code', 'Chat', 'Codex'],
  );
  assert.deepEqual(
    groupReview(queue, 'topic').map((g) => [g.key, g.memories.length]),
    [
      ['cat:instruction', 3],
      ['cat:persona', 1],
    ],
  );
});

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
  const { files, single } = groupImports([
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
