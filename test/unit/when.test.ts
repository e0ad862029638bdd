import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTime, resolveTimes } from '../../sidecar/pipeline/when';

// The reference: a message sent on Monday 2023-05-08 (UTC).
const REF = new Date('2023-05-08T13:56:00Z');

const CASES: Array<[string, string, string]> = [
  // [message, the words, resolved]
  ['I went there yesterday', 'yesterday', '2023-05-07'],
  ['I took that pic on a hike last summer near Fort Wayne', 'last summer', '2022-06-01..2022-08-31'],
  ['we shipped it two weeks ago', 'two weeks ago', '2023-04-24..2023-04-30'],
  ['next month I move to Berlin', 'next month', '2023-06-01..2023-06-30'],
  ['last Friday the build broke', 'last Friday', '2023-05-05'],
  ['I went camping last weekend', 'last weekend', '2023-05-06..2023-05-07'],
  ['We moved there in 2022', 'in 2022', '2022-01-01..2022-12-31'],
  ['the outage was last week', 'last week', '2023-05-01..2023-05-07'],
  ['I adopted Max 3 years ago', '3 years ago', '2020-01-01..2020-12-31'],
  ['We met on 2023-04-30', '2023-04-30', '2023-04-30'],
  ['我昨天去了医院', '昨天', '2023-05-07'],
  ['上周我们开了复盘会', '上周', '2023-05-01..2023-05-07'],
  ['去年夏天我们去了青岛', '去年夏天', '2022-06-01..2022-08-31'],
  ['三天前数据库挂了', '三天前', '2023-05-05'],
  ['下个月发布 2.0', '下个月', '2023-06-01..2023-06-30'],
  ['上周五改了超时', '上周五', '2023-05-05'],
  ['去年换了工作', '去年', '2022-01-01..2022-12-31'],
  ['上周末去爬山了', '上周末', '2023-05-06..2023-05-07'],
  ['上个月 28 号搬的', '上个月 28 号', '2023-04-28'],
  ['下个月十五号交房', '下个月十五号', '2023-06-15'],
  ['上月二十八日到的', '上月二十八日', '2023-04-28'],
  ['下个月 31 号截止', '下个月', '2023-06-01..2023-06-30'],
];

for (const [message, words, resolved] of CASES) {
  test(`"${message}" → ${words} = ${resolved}`, () => {
    const times = resolveTimes(message, REF);
    assert.equal(times.length, 1, JSON.stringify(times));
    assert.equal(times[0].text, words);
    assert.equal(formatTime(times[0]), resolved);
  });
}

test('numbers, versions, ports and clock times are not dates', () => {
  for (const text of [
    '现在又连不上了',
    'right now the build is green',
    'we set the timeout to 1500 ms',
    'port 5432 → 6432',
    'version 2.3.1 released',
    'at 3pm we meet',
    'PLC-3000 超时 1500ms',
  ]) {
    assert.deepEqual(resolveTimes(text, REF), [], text);
  }
});

test('"last summer" in October is the summer just past; in May it is last year’s', () => {
  assert.equal(
    formatTime(resolveTimes('last summer', new Date('2023-10-02T00:00:00Z'))[0]),
    '2023-06-01..2023-08-31',
  );
  assert.equal(
    formatTime(resolveTimes('last summer', new Date('2023-05-02T00:00:00Z'))[0]),
    '2022-06-01..2022-08-31',
  );
});

test('no reference time, no guess', () => {
  assert.deepEqual(resolveTimes('yesterday', new Date(Number.NaN)), []);
});

test('holidays: with a year, the nearest one, last / next, and in Chinese', () => {
  const at = (t: string, ref: string) => resolveTimes(t, new Date(ref)).map((x) => [x.text, x.start, x.end]);
  assert.deepEqual(at('What did Lina get for Christmas 2025?', '2026-12-01T00:00:00Z'), [
    ['Christmas 2025', '2025-12-25', '2025-12-25'],
  ]);
  // said four days after: that Christmas; said in November: the coming one
  assert.deepEqual(at('my partner got me a machine for Christmas', '2025-12-29T22:00:00Z'), [
    ['Christmas', '2025-12-25', '2025-12-25'],
  ]);
  assert.deepEqual(at('plans for Christmas?', '2025-11-10T10:00:00Z'), [
    ['Christmas', '2025-12-25', '2025-12-25'],
  ]);
  assert.deepEqual(at('last Christmas we skied', '2025-11-10T10:00:00Z'), [
    ['last Christmas', '2024-12-25', '2024-12-25'],
  ]);
  assert.deepEqual(at('去年国庆去了西安', '2026-03-01T00:00:00Z'), [
    ['去年国庆', '2025-10-01', '2025-10-07'],
  ]);
  assert.deepEqual(at('2025年圣诞节在哈尔滨', '2026-03-01T00:00:00Z'), [
    ['2025年圣诞节', '2025-12-25', '2025-12-25'],
  ]);
});
