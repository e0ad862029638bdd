/**
 * Which turns an evidence excerpt quotes (sidecar/recall/context.ts, `excerptOf`): the exchange around a
 * recalled turn, never across sessions, projects or a long pause, never a question answered by a question.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Episode } from '../../sidecar/model';
import { CHANGES_SUBJECT, excerptOf, type Steps } from '../../sidecar/recall/context';

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

test('an assistant’s short reply is quoted with the turn it reacts to; a person’s short statement stands alone', () => {
  const s = [
    turn('t', '钱多多', '余杭未来科技城的一套三居，89 平，总价 285 万', 0),
    turn('c', 'assistant', '比预算还低一些，不错。', 1, { role: 'assistant' }),
  ];
  assert.deepEqual(ids(excerptOf(s[1]!, along(s))), ['t', 'c']);
  const people = [turn('t', '小赵', '英雄', 0), turn('c', '刘工', '二号线这个月的错误预算有点紧', 1)];
  assert.equal(excerptOf(people[1]!, along(people)), undefined);
  const late = [s[0]!, turn('c', 'assistant', '不错。', 31, { role: 'assistant' })];
  assert.equal(excerptOf(late[1]!, along(late)), undefined);
});

test('a turn that changes the subject ends the exchange a thread quotes', () => {
  for (const t of [
    'btw my resting heart rate is around 64',
    'personal news, I ran my first half marathon',
    '顺便说一下，我爸妈在绍兴',
    '说个题外话，楼下新开的奶茶店一般般',
    '对了，周五团建',
  ])
    assert.ok(CHANGES_SUBJECT.test(t), t);
  for (const t of [
    'ok we fixed it in 5.0.2 by retrying the Keychain read',
    '是交换机口那根网线的水晶头松了',
    'also, the retry fixed it',
  ])
    assert.ok(!CHANGES_SUBJECT.test(t), t);
});
