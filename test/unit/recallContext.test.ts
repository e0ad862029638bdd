/**
 * Which turns an evidence excerpt quotes (sidecar/recall/context.ts, `excerptOf`): the exchange around a
 * recalled turn, never across sessions, projects or a long pause, never a question answered by a question.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Episode } from '../../sidecar/model';
import { excerptOf, type Steps } from '../../sidecar/recall/context';

const turn = (
  id: string,
  speaker: string,
  text: string,
  minute: number,
  over: Partial<Episode> = {},
): Episode => ({
  id,
  project_id: 'p',
  session_id: 's',
  message_id: id,
  role: 'user',
  speaker,
  text,
  occurred_at: new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString(),
  source_type: 'chat',
  source_ref: [`msg:${id}`],
  times: [],
  memory_ids: [],
  created_at: '2026-03-01T10:00:00.000Z',
  ...over,
});

/** Steps through a list of turns as said. */
const along = (turns: Episode[]): Steps => ({
  next: (e) => turns[turns.indexOf(e) + 1],
  previous: (e) => turns[turns.indexOf(e) - 1],
});
const ids = (x: Episode[] | undefined) => x?.map((e) => e.id);

test('a question is quoted with the other speaker’s reply after it', () => {
  const s = [
    turn('q', 'Zhao', '什么时候搬的？', 0),
    turn('a', 'Min', '上个月 28 号搬的', 1),
    turn('z', 'Zhao', '好', 2),
  ];
  assert.deepEqual(ids(excerptOf(s[0]!, along(s))), ['q', 'a']);
});

test('a statement followed by a question is quoted with the question and its answer', () => {
  const s = [
    turn('t', '赵敏', '终于搬进新家了！', 0),
    turn('q', 'assistant', '恭喜！住得还习惯吗？', 1),
    turn('a', '赵敏', '上个月 28 号搬的，豆豆到处闻', 2),
  ];
  assert.deepEqual(ids(excerptOf(s[0]!, along(s))), ['t', 'q', 'a']);
});

test('a short reply is quoted with the question before it; a long statement stands alone', () => {
  const s = [turn('q', 'Ada', 'Which gym?', 0), turn('a', 'Ben', 'Ironworks.', 1)];
  assert.deepEqual(ids(excerptOf(s[1]!, along(s))), ['q', 'a']);
  const long = [turn('q', 'Ada', 'Which gym?', 0), turn('a', 'Ben', 'x'.repeat(81), 1)];
  assert.equal(excerptOf(long[1]!, along(long)), undefined);
});

test('no neighbour from another session, another project, the same speaker or after a long pause', () => {
  const q = turn('q', 'Ada', 'Which gym?', 0);
  for (const other of [
    turn('a', 'Ben', 'Ironworks.', 1, { session_id: 's2' }),
    turn('a', 'Ben', 'Ironworks.', 1, { project_id: 'p2' }),
    turn('a', 'Ada', 'Ironworks, I think.', 1),
    turn('a', 'Ben', 'Ironworks.', 31),
  ])
    assert.equal(excerptOf(q, along([q, other])), undefined, JSON.stringify(other));
});

test('a question answered by a question is no answer', () => {
  const s = [turn('q', 'Ada', 'Which gym?', 0), turn('a', 'Ben', 'Why do you ask?', 1)];
  assert.equal(excerptOf(s[0]!, along(s)), undefined);
  const t = [turn('t', 'Ada', 'We moved!', 0), turn('q', 'Ben', 'When?', 1), turn('a', 'Ada', 'Guess?', 2)];
  assert.equal(excerptOf(t[0]!, along(t)), undefined);
});
