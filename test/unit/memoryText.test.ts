import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Memory } from '../../sidecar/model';
import { parseFileRef } from '../../src/shared/sourceRef';
import { describeError } from '../../src/errors';
import {
  accessibilityLabel,
  description,
  evidenceSection,
  marks,
  matchedBy,
  detailRows,
  sourceRows,
  nearMissReason,
  percent,
  shortText,
  tooltipRows,
  when,
} from '../../src/shared/memoryText';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function memory(over: Partial<Memory> = {}): Memory {
  return {
    id: 'mem_0123456789abcdef',
    text: 'Deploy the gateway with make release, never by hand.',
    category: 'instruction',
    source_type: 'manual',
    project_id: 'acme/api',
    confidence_score: 0.86,
    is_actionable: true,
    source_ref: ['src/deploy.ts:12'],
    status: 'active',
    created_at: '2026-11-28T12:00:00Z',
    updated_at: '2026-12-01T02:43:00Z',
    last_seen_at: '2026-11-28T12:00:00Z',
    times_seen: 1,
    added_by: 'ed@box',
    reason: 'rule:explicit-request',
    score: 9,
    embedding_model: 'm',
    embedding_dim: 384,
    use_count: 0,
    ...over,
  };
}

test('confidence reads as a whole percentage, clamped', () => {
  assert.equal(percent(0.856), '86%');
  assert.equal(percent(1.2), '100%');
  assert.equal(percent(-1), '0%');
});

test('long or multi-line texts fit one line with an ellipsis', () => {
  assert.equal(shortText('a\n  b\tc'), 'a b c');
  assert.equal(shortText('x'.repeat(100), 10), `${'x'.repeat(9)}…`);
  assert.equal(shortText('exactly ten', 11), 'exactly ten');
});

test('marks say status, actionable and low confidence in words; a wrong memory is not also "low confidence"', () => {
  assert.deepEqual(marks(memory()), ['actionable']);
  assert.deepEqual(marks(memory({ status: 'pending', confidence_score: 0.3, is_actionable: false })), [
    'pending',
    'low confidence',
  ]);
  assert.deepEqual(marks(memory({ status: 'wrong', confidence_score: 0 })), ['wrong', 'actionable']);
});

test('the description and screen-reader label carry confidence, age and marks', () => {
  assert.equal(description(memory(), NOW), '86% · 3 days ago · actionable');
  const label = accessibilityLabel(memory({ is_actionable: false }), NOW);
  assert.equal(
    label,
    'Instruction memory: Deploy the gateway with make release, never by hand.. Confidence 86%. Created 3 days ago.',
  );
});

test('the tooltip shows local times with UTC, the project by its label, and every field in words', () => {
  const rows = new Map(
    tooltipRows(memory({ status: 'confirmed', confirmed_by: 'ann@box' }), {
      projectLabel: (id) => `label of ${id}`,
      timeZone: 'Asia/Shanghai',
      now: NOW,
    }),
  );
  assert.equal(rows.get('Updated'), '2026-12-01 10:43 · 9 hours ago (2026-12-01 02:43 UTC)');
  assert.equal(rows.get('Project'), 'label of acme/api');
  assert.equal(rows.get('Status'), 'confirmed by ann@box');
  assert.equal(
    rows.get('Confidence'),
    '86% — how likely it still holds (it fades when unused, rises when confirmed)',
  );
  assert.equal(rows.get('Worth'), '9.0 of 10 — how useful it looked when it was captured');
  assert.equal(rows.get('Kept because'), 'You asked to remember this', 'the rule syntax reads as words');
  assert.equal(rows.get('Source'), 'src/deploy.ts:12');
  assert.equal(when('2026-12-01T02:43:00Z', 'UTC', NOW).utc, '2026-12-01 02:43 UTC');
});

test('file:line source refs open files; message ids, terminals and URLs do not', () => {
  assert.deepEqual(parseFileRef('src/app.ts:12'), { file: 'src/app.ts', line: 11 });
  assert.deepEqual(parseFileRef('file:src/app.ts:3:7'), { file: 'src/app.ts', line: 2 });
  assert.deepEqual(parseFileRef('/abs/a b.ts:1'), { file: '/abs/a b.ts', line: 0 });
  for (const ref of [
    'msg:abc',
    'https://example.com:443',
    'terminal:bash',
    'cwd:/repo',
    'chat-export:x.json',
    'src/app.ts',
  ]) {
    assert.equal(parseFileRef(ref), undefined, ref);
  }
});

test("errors become one sentence: the sidecar's own, or one per code", () => {
  assert.match(describeError({ code: -32010, message: '' }), /ChromaDB/);
  assert.equal(
    describeError({ code: -32004, message: 'No memory mem_1 exists.' }),
    'No memory mem_1 exists.',
  );
  assert.equal(describeError(new Error('plain failure')), 'plain failure.');
  assert.match(describeError(new Error('Client is not running')), /memory service is not running/);
  assert.match(describeError(new Error('line one\n    at x')), /internal error/);
});

test('the details say every field in words and explain each source', () => {
  const m = memory({
    source_ref: ['src/deploy.ts:12', 'msg:m5', 'terminal:bash', 'cwd:/repo'],
    use_count: 2,
    last_used_at: '2026-12-01T02:43:00Z',
  });
  const c = {
    projectLabel: () => 'api',
    timeZone: 'Asia/Shanghai',
    now: NOW,
    isFileRef: (r: string) => parseFileRef(r) !== undefined,
  };
  const rows = new Map(detailRows(m, c));
  assert.equal(rows.get('Kept because'), 'You asked to remember this');
  assert.equal(rows.get('Project'), 'api (acme/api)');
  assert.equal(
    rows.get('Used'),
    "2× in an agent's context, last 2026-12-01 10:43 · 9 hours ago (2026-12-01 02:43 UTC)",
  );
  assert.deepEqual(sourceRows(m, c), [
    ['src/deploy.ts:12', 'a file and line: Open Source opens it'],
    ['msg:m5', 'a message of the conversation or terminal session it was learned from (below, when kept)'],
    ['terminal:bash', 'the terminal it was captured in'],
    ['cwd:/repo', 'the folder the commands ran in'],
  ]);
  assert.deepEqual(sourceRows(memory({ source_ref: [] }), c), []);
});

test('a wrong memory says who marked it wrong and when, in the details and the tooltip', () => {
  const m = memory({ status: 'wrong', wrong_by: 'ann@laptop', wrong_at: '2026-12-01T09:00:00Z' });
  const c = { projectLabel: () => 'api', timeZone: 'UTC', now: NOW, isFileRef: () => false };
  const said = 'marked wrong by ann@laptop, 2026-12-01 09:00 · 3 hours ago (2026-12-01 09:00 UTC)';
  assert.ok(new Map(detailRows(m, c)).get('Status')?.startsWith(said));
  assert.ok(new Map(tooltipRows(m, c)).get('Status')?.startsWith(said));
});

test('the detail view quotes the source session, the memory’s own turn marked, times in the user’s zone', () => {
  const turn = (n: number, speaker: string, text: string) => ({
    id: `ep_${n}`,
    project_id: 'acme/api',
    session_id: 'S1',
    message_id: `m${n}`,
    role: 'user',
    speaker,
    text,
    occurred_at: `2026-12-01T02:4${n}:00Z`,
    source_type: 'chat' as const,
    source_ref: [`msg:m${n}`, 'chat:@mnemo'],
    times: [],
    memory_ids: [],
    created_at: '2026-12-01T02:50:00Z',
  });
  const text = evidenceSection(
    {
      memory_id: 'mem_1',
      sessions: [
        {
          session_id: 'S1',
          source_type: 'chat',
          source_ref: ['chat:@mnemo'],
          turns: [
            { episode: turn(1, 'user', 'Why is the deploy slow?'), matched: false },
            {
              episode: turn(2, 'user', 'Remember: deploy with make release.\nNever by hand.'),
              matched: true,
            },
          ],
          total_turns: 5,
        },
      ],
    },
    { timeZone: 'Asia/Shanghai' },
  );
  assert.match(text, /^Where it came from$/m);
  assert.match(text, /^ {2}Conversation S1 · Chat · 2026-12-01 10:41 · 2 of 5 turns$/m);
  assert.match(text, /^ {2}from chat:@mnemo$/m);
  assert.match(text, /^ {3} 2026-12-01 10:41 {2}user {2}Why is the deploy slow\?$/m);
  assert.match(text, /^ {2}▶ 2026-12-01 10:42 {2}user {2}Remember: deploy with make release\.$/m);
  assert.match(text, /^ {2}▶ +Never by hand\.$/m, 'a second line stays marked and indented');
  assert.match(
    evidenceSection(
      { memory_id: 'mem_1', sessions: [], note: 'Sessions are not kept.' },
      { timeZone: 'UTC' },
    ),
    /Where it came from\n {2}Sessions are not kept\.\n$/,
  );
});

test('near misses say in words why they were not recalled', () => {
  const c = { topK: 3, minConfidence: 0.6, tokenBudget: 800, projectLabel: (id: string) => `“${id}”` };
  assert.match(
    nearMissReason({ memory: memory({ status: 'wrong' }), score: 0.7, reason: 'not_recallable' }, c),
    /marked wrong: such memories are never recalled/,
  );
  assert.match(
    nearMissReason({ memory: memory({ status: 'pending' }), score: 0.7, reason: 'not_recallable' }, c),
    /pending review: it is recalled once confirmed/,
  );
  assert.match(
    nearMissReason({ memory: memory({ project_id: 'shop' }), score: 0.7, reason: 'other_project' }, c),
    /“shop”, a project not open in this workspace/,
  );
  assert.match(
    nearMissReason({ memory: memory({ confidence_score: 0.4 }), score: 0.7, reason: 'low_confidence' }, c),
    /40% is at or under the minimum 60%/,
  );
  assert.match(nearMissReason({ memory: memory(), score: 0.7, reason: 'beyond_top_k' }, c), /the 3 places/);
  assert.match(nearMissReason({ memory: memory(), score: 0.7, reason: 'over_budget' }, c), /800/);
});

test('a search result says how it matched in words, never a percentage mixing the channels', () => {
  assert.equal(matchedBy(['vector']), 'by meaning');
  assert.equal(matchedBy(['lexical']), 'by words');
  assert.equal(matchedBy(['vector', 'lexical']), 'by meaning and words');
  assert.equal(matchedBy(['lexical', 'vector']), 'by meaning and words');
  assert.equal(matchedBy([]), '');
  assert.equal(matchedBy(undefined), '');
});
