/** What an agent's report does to a memory (sidecar/lifecycle/report.ts): pure, so every case is here. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  applyReport,
  isAgent,
  reportNote,
  reportRefusal,
  USED_CEILING,
} from '../../sidecar/lifecycle/report';
import type { Memory } from '../../sidecar/model';

function memory(over: Partial<Memory> = {}): Memory {
  return {
    id: 'mem_0123456789abcdef',
    text: 'The gateway polls Modbus every 250 ms.',
    category: 'instruction',
    source_type: 'chat',
    project_id: 'p',
    confidence_score: 0.7,
    is_actionable: true,
    source_ref: [],
    status: 'active',
    created_at: '2026-03-01T00:00:00.000Z',
    updated_at: '2026-03-01T00:00:00.000Z',
    last_seen_at: '2026-03-01T00:00:00.000Z',
    times_seen: 1,
    added_by: 'u@m',
    reason: 'keep:decision',
    score: 6,
    embedding_model: 'm',
    embedding_dim: 3,
    use_count: 0,
    ...over,
  };
}

const agent = 'agent:claude-code@1.0.3';

test('used raises the confidence a little, never past the ceiling an agent cannot pass', () => {
  assert.equal(applyReport(memory(), 'used', agent).confidence_score, 0.72);
  assert.equal(applyReport(memory({ confidence_score: 0.89 }), 'used', agent).confidence_score, USED_CEILING);
  const high = memory({ status: 'confirmed', confidence_score: 1 });
  assert.equal(applyReport(high, 'used', agent), high, 'a higher confidence (a person’s) is left alone');
  assert.equal(applyReport(memory(), 'used', agent).flagged_by, undefined);
});

test('wrong lowers an unconfirmed memory and flags it; a confirmed one is only flagged; no status changes', () => {
  const lowered = applyReport(memory(), 'wrong', agent);
  assert.deepEqual(
    { status: lowered.status, confidence: lowered.confidence_score, flagged: lowered.flagged_by },
    { status: 'active', confidence: 0.6, flagged: agent },
  );
  assert.equal(applyReport(memory({ confidence_score: 0.05 }), 'wrong', agent).confidence_score, 0);
  const confirmed = applyReport(memory({ status: 'confirmed', confidence_score: 0.9 }), 'wrong', agent);
  assert.deepEqual(
    { status: confirmed.status, confidence: confirmed.confidence_score, flagged: confirmed.flagged_by },
    { status: 'confirmed', confidence: 0.9, flagged: agent },
  );
});

test('only active, confirmed and pending memories can be reported; agents are told apart from people', () => {
  for (const status of ['active', 'confirmed', 'pending'] as const)
    assert.equal(reportRefusal(memory({ status })), undefined);
  for (const status of ['wrong', 'archived', 'superseded'] as const)
    assert.match(reportRefusal(memory({ status }))!, new RegExp(`is ${status}: it is no longer recalled`));
  assert.equal(isAgent(agent), true);
  assert.equal(isAgent('alice@laptop'), false);
  assert.equal(isAgent(undefined), false);
});

test('the audit note says what was reported, about which serving, and why', () => {
  assert.equal(
    reportNote(memory(), 'used', 'srv_1', 'it fixed the build'),
    'reported used (served in srv_1): it fixed the build',
  );
  assert.equal(
    reportNote(memory({ status: 'confirmed', confirmed_by: 'alice@laptop' }), 'wrong', undefined),
    "reported wrong; alice@laptop confirmed it, so it waits for a person's review",
  );
});
