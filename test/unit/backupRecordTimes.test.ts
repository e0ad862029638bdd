/**
 * A memory whose text mentions a time ("every Sunday", "last night") carries `times`; a backup line with
 * them must read back (issue 19's restore UI test: one such memory made the whole restore refused).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryLine, parseRecord } from '../../sidecar/backup/format';
import type { Memory } from '../../sidecar/model';

const MEMORY: Memory = {
  id: 'mem_0123456789abcdef',
  text: 'The staging database is reset every Sunday at 03:00 UTC.',
  category: 'instruction',
  source_type: 'manual',
  project_id: 'web-shop',
  confidence_score: 0.8,
  is_actionable: true,
  source_ref: ['msg:m1'],
  status: 'active',
  created_at: '2026-12-01T10:00:00.000Z',
  updated_at: '2026-12-01T10:00:00.000Z',
  last_seen_at: '2026-12-01T10:00:00.000Z',
  times_seen: 1,
  added_by: 'rules',
  reason: 'rule:explicit-request',
  score: 7,
  embedding_model: 'local:Xenova/all-MiniLM-L6-v2',
  embedding_dim: 384,
  use_count: 0,
  times: [{ text: 'last night', start: '2026-11-30', end: '2026-11-30' }],
};

test('a backed-up memory with the times its text mentions reads back with them', () => {
  const r = parseRecord(memoryLine(MEMORY), null);
  assert.notEqual(typeof r, 'string', `refused: ${String(r)}`);
  assert.deepEqual((r as { memory: Memory }).memory, MEMORY);
});

test('malformed times are one clear reason, not a generic type error', () => {
  const line = JSON.stringify({ ...JSON.parse(memoryLine(MEMORY)), times: [{ text: 'x' }] });
  assert.equal(parseRecord(line, null), 'times is not a list of time spans');
  const none = JSON.parse(memoryLine(MEMORY));
  delete none.times;
  assert.equal((parseRecord(JSON.stringify(none), null) as { memory: Memory }).memory.times, undefined);
});
