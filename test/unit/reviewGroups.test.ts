import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Memory } from '../../sidecar/model';
import { groupReview } from '../../src/views/reviewGroups';

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
