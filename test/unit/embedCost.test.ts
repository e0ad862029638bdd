/**
 * What keeps embedding cheap on a capture's backfill: the trained sequence length of a model, only the
 * start of a command's output embedded, and short texts that come back across sessions embedded once.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { capSequenceLength, trainedMaxTokens } from '../../sidecar/embed/sequenceLength';
import { embedTurns } from '../../sidecar/embed/turnCache';
import type { EmbedOptions, EmbeddingProvider } from '../../sidecar/embed/types';
import { episodeSearchText, episodeVectorText, TOOL_VECTOR_CHARS } from '../../sidecar/store/episodeStore';

void test('the trained length comes from sentence_bert_config.json, else the known models, else none', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-seq-'));
  try {
    assert.equal(trainedMaxTokens('Xenova/all-MiniLM-L6-v2', dir), 256);
    assert.equal(trainedMaxTokens('Xenova/paraphrase-multilingual-MiniLM-L12-v2', dir), 128);
    assert.equal(trainedMaxTokens('someone/unknown-model', dir), undefined);
    fs.writeFileSync(path.join(dir, 'sentence_bert_config.json'), '{"max_seq_length": 384}');
    assert.equal(trainedMaxTokens('Xenova/all-MiniLM-L6-v2', dir), 384, 'the folder says best');
    fs.writeFileSync(path.join(dir, 'sentence_bert_config.json'), 'not json');
    assert.equal(trainedMaxTokens('Xenova/all-MiniLM-L6-v2', dir), 256);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('the tokenizer limit is lowered to the trained length, never raised', () => {
  const t = { model_max_length: 512 };
  assert.equal(capSequenceLength(t, 256), 256);
  assert.equal(capSequenceLength(t, 384), 256, 'never raised');
  assert.equal(capSequenceLength({ model_max_length: 512 }, undefined), 512, 'unknown: as it was');
  assert.equal(capSequenceLength(undefined, 256), undefined);
});

void test('a tool turn is embedded from what it is about; every other turn whole', () => {
  const failed = `exit 1 · > jest --ci\n\n${'PASS test/cart.spec.ts (120 ms)\n'.repeat(5)}FAIL test/orders.spec.ts › retries the payment\n${'  at Object.<anonymous> (test/orders.spec.ts:41:7)\n'.repeat(80)}`;
  const tool = { role: 'tool' as const, speaker: 'tool', text: failed };
  assert.equal(
    episodeVectorText(tool),
    'tool: exit 1 · FAIL test/orders.spec.ts › retries the payment',
    'a failure: its exit code and first error line, not the banner it starts with',
  );
  assert.equal(episodeSearchText(tool).length, failed.length + 'tool: '.length, 'all of it is searched');
  const passed = {
    ...tool,
    text: `exit 0 · \n> jest --ci\n\n${'PASS test/cart.spec.ts (120 ms)\n'.repeat(40)}`,
  };
  assert.equal(
    episodeVectorText(passed),
    'tool: exit 0 · > jest --ci',
    'a success: what ran, not its timings',
  );
  const wide = { ...tool, text: `exit 0 · ${'{"ok":true,"items":[1,2,3]}'.repeat(40)}` };
  assert.equal(episodeVectorText(wide).length, TOOL_VECTOR_CHARS, 'a long first line is cut');
  const read = { ...tool, text: `${'export const x = 1;\n'.repeat(40)}` };
  assert.equal(episodeVectorText(read).length, TOOL_VECTOR_CHARS);
  assert.ok(episodeSearchText(read).startsWith(episodeVectorText(read)), 'any other tool turn: its start');
  const calls = { ...tool, speaker: 'Claude Code', text: 'Edit src/app.ts; Read README.md' };
  assert.equal(episodeVectorText(calls), 'Claude Code: Edit src/app.ts; Read README.md');
  const said = { role: 'user' as const, speaker: 'Ana', text: 'x'.repeat(3000) };
  assert.equal(episodeVectorText(said), episodeSearchText(said));
});

/** A provider that counts what it is asked to embed (the cache is what is tested here). */
function counting(modelId: string): EmbeddingProvider & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    modelId,
    dimension: () => 2,
    ready: async () => undefined,
    embed: async (texts: string[], _o?: EmbedOptions) => {
      asked.push(texts);
      return texts.map((t) => [t.length, 1]);
    },
    dispose: () => undefined,
  } as unknown as EmbeddingProvider & { asked: string[][] };
}

void test('short texts that come back are embedded once per model; long ones every time', async () => {
  const p = counting('m1');
  const long = 'y'.repeat(400);
  const first = await embedTurns(p, ['$ git status', 'ok go ahead', long]);
  const second = await embedTurns(p, ['ok go ahead', '$ npm test', long, '$ git status']);
  assert.deepEqual(p.asked, [
    ['$ git status', 'ok go ahead', long],
    ['$ npm test', long],
  ]);
  assert.deepEqual(second, [first[1], [10, 1], first[2], first[0]], 'in the order asked');
  const other = counting('m2');
  await embedTurns(other, ['ok go ahead']);
  assert.deepEqual(other.asked, [['ok go ahead']], 'another model is asked again');
});
