import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { classifyFactChange } from '../../sidecar/ingest/factChange';
import { distinctFacts, updatesOf } from '../fixtures/dedup/distinctFacts';

interface Pair {
  lang: 'en' | 'zh';
  label: 'same' | 'update';
  older: string;
  newer: string;
}

const pairs: Pair[] = readFileSync(join(__dirname, '..', 'fixtures', 'dedup', 'pairs.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Pair);

test('the labelled set has at least 60 paraphrase and 60 update pairs, half of each Chinese', () => {
  for (const label of ['same', 'update'] as const) {
    const of = pairs.filter((p) => p.label === label);
    assert.ok(of.length >= 60, `${of.length} ${label} pairs`);
    assert.ok(
      of.filter((p) => p.lang === 'zh').length >= of.length / 2,
      `half of the ${label} pairs are Chinese`,
    );
  }
});

for (const lang of ['all', 'en', 'zh'] as const) {
  test(`'update' precision and recall >= 0.9 on the labelled pairs (${lang})`, () => {
    const set = pairs.filter((p) => lang === 'all' || p.lang === lang);
    let tp = 0;
    let fp = 0;
    let fn = 0;
    let sameKept = 0;
    const misses: string[] = [];
    for (const p of set) {
      const r = classifyFactChange(p.newer, p.older);
      if (r.verdict === 'update' && p.label === 'update') tp++;
      else if (r.verdict === 'update') {
        fp++;
        misses.push(`false update: "${p.older}" / "${p.newer}" (${r.reason})`);
      } else if (p.label === 'update') {
        fn++;
        misses.push(`missed update (${r.verdict}): "${p.older}" / "${p.newer}" (${r.reason})`);
      } else if (r.verdict === 'same') sameKept++;
    }
    const precision = tp / (tp + fp || 1);
    const recall = tp / (tp + fn || 1);
    const paraphrases = set.filter((p) => p.label === 'same').length;
    console.log(
      `factChange ${lang}: update precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)} (${tp} tp, ${fp} fp, ${fn} fn); ` +
        `${sameKept}/${paraphrases} paraphrases merged as 'same', the rest sent to review`,
    );
    for (const m of misses) console.log(`  ${m}`);
    assert.ok(precision >= 0.9, `precision ${precision.toFixed(3)}`);
    assert.ok(recall >= 0.9, `recall ${recall.toFixed(3)}`);
  });
}

test('the audit pairs: a changed timeout, port and freeze are updates, in both directions', () => {
  assert.equal(
    classifyFactChange('We set the timeout to 3000 ms.', 'We set the timeout to 1500 ms.').verdict,
    'update',
  );
  assert.equal(
    classifyFactChange('Postgres runs on port 6432.', 'Postgres runs on port 5432.').verdict,
    'update',
  );
  assert.equal(
    classifyFactChange('The main branch is no longer frozen.', 'The main branch is frozen.').verdict,
    'update',
  );
  assert.equal(
    classifyFactChange('The main branch is frozen.', 'The main branch is no longer frozen.').verdict,
    'update',
  );
  assert.equal(
    classifyFactChange('The timeout is 1500 s.', 'The timeout is 1500 ms.').verdict,
    'update',
    'same number, other unit',
  );
});

test('the same text is the same fact; an added value is unsure, never merged silently', () => {
  assert.equal(
    classifyFactChange('We set the timeout to 1500 ms.', 'We set the timeout to 1500 ms.').verdict,
    'same',
  );
  assert.equal(
    classifyFactChange('The timeout is 1500 ms, retried 3 times.', 'The timeout is 1500 ms.').verdict,
    'unsure',
  );
});

test('500 distinct facts (issue 39): none is taken for an update of another; true updates still are', () => {
  const facts = distinctFacts(500);
  const bySubject = new Map<string, string[]>();
  for (const f of facts) bySubject.set(f.subject, [...(bySubject.get(f.subject) ?? []), f.text]);
  const verdicts: Record<string, number> = {};
  const updates: string[] = [];
  for (const texts of bySubject.values())
    for (let i = 0; i < texts.length; i++)
      for (let j = 0; j < i; j++) {
        const r = classifyFactChange(texts[i]!, texts[j]!);
        verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
        if (r.verdict === 'update') updates.push(`"${texts[j]}" -> "${texts[i]}" (${r.reason})`);
      }
  console.log(`500 distinct facts, every pair sharing a subject: ${JSON.stringify(verdicts)}`);
  assert.deepEqual(updates.slice(0, 5), [], `${updates.length} false updates`);
  const real = updatesOf(facts);
  const missed = real.filter((p) => classifyFactChange(p.newer, p.older).verdict !== 'update');
  assert.deepEqual(missed, [], 'the same subject, action and measure with another threshold is an update');
});

test('a ticket number, issue key or commit hash is an identifier, not a value', () => {
  for (const [older, newer] of [
    ['The cache is flushed nightly, per ticket K0436.', 'The cache is flushed nightly, per ticket K0451.'],
    ['Retries are capped at 3 (JIRA-1201).', 'Retries are capped at 3 (JIRA-1388).'],
    ['The flaky test was fixed in 3f2a9c1d.', 'The flaky test was fixed in 9b8e7d6c.'],
    ['缓存每晚清理，工单 K0436。', '缓存每晚清理，工单 K0451。'],
  ])
    assert.equal(classifyFactChange(newer!, older!).verdict, 'same', `${older} / ${newer}`);
});

test('another action or another measure of the same subject is a separate fact, in English and Chinese', () => {
  for (const [older, newer] of [
    [
      'Redis cache is upgraded if the queue lag exceeds 5000, per ticket K0436.',
      'Redis cache is backed up whenever latency exceeds 200 ms, per ticket K0451.',
    ],
    [
      'The payments gateway is restarted when the CPU load exceeds 90% for five minutes.',
      'The payments gateway is throttled when the error rate exceeds 5% for five minutes.',
    ],
    ['Redis 缓存在队列延迟超过 5000 时升级。', 'Redis 缓存在响应时间超过 200 毫秒时备份。'],
  ])
    assert.equal(classifyFactChange(newer!, older!).verdict, 'distinct', `${older} / ${newer}`);
});
