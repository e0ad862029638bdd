import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainDrop, explainReason } from '../../src/shared/reasons';

test('rule syntax becomes a sentence, cues kept', () => {
  assert.equal(
    explainReason('rule:explicit-request(请记录) +tech-number(数据库 50)'),
    'You asked to remember this (“请记录”) · contains a setting: 数据库 50',
  );
  assert.equal(
    explainReason('rule:operational-verb(设为) +tech-number(阈值 1500ms) +source-ref(file)'),
    'Describes how something is done (“设为”) · contains a setting: 阈值 1500ms · cites a source (file)',
  );
  assert.equal(explainReason('rule:preference(I prefer)'), 'States a preference (“I prefer”)');
});

test('terminal fixes, language-model proposals and agreement read as what happened', () => {
  assert.equal(
    explainReason('rule:terminal-fix(npm exit 1 -> exit 0)'),
    'A failing `npm` command (exit 1) was then fixed',
  );
  assert.equal(explainReason('llm:persona'), 'The language model proposed it as persona');
  assert.equal(
    explainReason('rule:decision(we decided) +llm-agrees'),
    'Records a decision (“we decided”) · the language model agrees',
  );
});

test('explicit requests, imports and the review suffix', () => {
  assert.equal(explainReason('explicit: remembered on request'), 'You asked to remember this');
  assert.equal(explainReason('bulk import'), 'Imported from a list of memories');
  assert.equal(
    explainReason('rule:decision(decided); pending: explicit request (maybe)'),
    'Records a decision (“decided”) — waits for review: explicit request (maybe)',
  );
});

test('unknown rules still read as words, and nothing recorded says so', () => {
  assert.equal(explainReason('rule:new-shiny-rule(cue)'), 'New shiny rule (cue)');
  assert.equal(explainReason('something else entirely'), 'something else entirely');
  assert.equal(explainReason(''), 'No reason was recorded');
  assert.equal(explainReason(undefined), 'No reason was recorded');
});

test('why a line was not kept reads as words, its cue kept; an unknown rule still reads', () => {
  assert.match(explainDrop('drop:command-ok-no-lesson'), /worked and taught nothing new/);
  assert.match(explainDrop('drop:command-failed-unfixed'), /no later command of the session fixed it/);
  assert.equal(explainDrop('drop:hedge(可能)'), 'a guess, not a fact (“可能”)');
  assert.equal(explainDrop('drop:brand-new-rule(x)'), 'brand new rule (x)');
  assert.equal(explainDrop(undefined), 'no reason was recorded');
  assert.equal(explainDrop('matches a memory marked wrong'), 'matches a memory marked wrong');
});
