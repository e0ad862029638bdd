import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Memory } from '../../sidecar/model';
import { describePatch, editPatch, formValues, savedMessage, validateEdit } from '../../src/views/editPatch';

const M: Memory = {
  id: 'mem_0123456789abcdef',
  text: 'Deploy the gateway with make release, never by hand.',
  category: 'instruction',
  source_type: 'manual',
  project_id: 'acme',
  confidence_score: 0.86,
  is_actionable: true,
  source_ref: ['src/deploy.ts:12', 'msg:m5'],
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
};

test('the form opens with the current values, category and actionable included', () => {
  assert.deepEqual(formValues(M), {
    text: M.text,
    category: 'instruction',
    confidence: '86',
    actionable: true,
    sources: 'src/deploy.ts:12\nmsg:m5',
  });
});

test('saving untouched values changes nothing', () => {
  assert.deepEqual(editPatch(formValues(M), formValues(M)), {});
  assert.equal(savedMessage(M, {}), 'Nothing changed');
});

test('fixing a typo changes only the text: category and actionable stay as they were', () => {
  const before = formValues(M);
  const patch = editPatch(before, {
    ...before,
    text: 'Deploy the gateway with `make release`, never by hand.',
  });
  assert.deepEqual(patch, { text: 'Deploy the gateway with `make release`, never by hand.' });
  assert.equal(savedMessage(M, patch), 'Updated “Deploy the gateway with `make release`,…”: text');
});

test('each changed field is saved and said', () => {
  const before = formValues(M);
  const patch = editPatch(before, {
    text: `  ${M.text}  `,
    category: 'persona',
    confidence: '70',
    actionable: false,
    sources: 'src/deploy.ts:12, docs/deploy.md:3',
  });
  assert.deepEqual(patch, {
    category: 'persona',
    confidence_score: 0.7,
    is_actionable: false,
    source_ref: ['src/deploy.ts:12', 'docs/deploy.md:3'],
  });
  assert.deepEqual(describePatch(M, patch), [
    'category Instruction → Persona',
    'confidence 86% → 70%',
    'no longer actionable',
    'sources (2)',
  ]);
});

test('whitespace around the text or sources and a fraction of a percent are not changes', () => {
  const before = formValues(M);
  assert.deepEqual(
    editPatch(before, {
      ...before,
      text: `${M.text}\n`,
      confidence: '86.2',
      sources: ' src/deploy.ts:12 ,\n msg:m5 \n',
    }),
    {},
  );
});

test('values that cannot be saved are refused with one sentence', () => {
  const v = formValues(M);
  assert.equal(validateEdit(v), undefined);
  assert.equal(validateEdit({ ...v, text: '  ' }), 'The text cannot be empty.');
  assert.equal(validateEdit({ ...v, confidence: '101' }), 'Confidence is a number from 0 to 100.');
  assert.equal(validateEdit({ ...v, confidence: 'high' }), 'Confidence is a number from 0 to 100.');
  assert.equal(validateEdit({ ...v, confidence: '' }), 'Confidence is a number from 0 to 100.');
  assert.equal(validateEdit({ ...v, category: 'other' as never }), 'Choose a category.');
});

test('a source added in the form must read as one; the ones the memory had are kept as they are', () => {
  const before = { ...formValues(M), sources: 'src/deploy.ts:12\ncmd:npm run migrate' };
  for (const ok of ['msg:m7', 'src/app.ts:12', 'file:AGENTS.md#L5', 'https://example.com/a', 'cwd:/repo'])
    assert.equal(validateEdit({ ...before, sources: `${before.sources}\n${ok}` }, before), undefined, ok);
  assert.equal(
    validateEdit({ ...before, sources: `${before.sources}\nmsg m7` }, before),
    '“msg m7” is not a source: write a file and line (src/app.ts:12), msg:<id> or a URL.',
  );
  assert.match(validateEdit({ ...before, sources: 'src/deploy.ts' }, before) ?? '', /is not a source/);
});
