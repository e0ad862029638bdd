/**
 * A changed fact replaces the old one (issue 16, item 1): "timeout 1500 ms" then "timeout 3000 ms" are
 * near-duplicate texts (cosine ~0.02) but different facts. The newer is stored, the older is superseded
 * (kept, linked, never recalled); a true paraphrase still refreshes the memory it repeats.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MnemoService } from '../../sidecar/service';
import { cleanupDataDir, inProcessService, tempDataDir } from '../support/sidecarSession';

describe('fact updates', () => {
  const dataDir = tempDataDir();
  let svc: MnemoService;
  before(async () => {
    svc = inProcessService(dataDir);
    await svc.start();
  });
  after(async () => {
    await svc.dispose();
    cleanupDataDir(dataDir);
  });

  test('a changed value supersedes the old memory; recall answers with the new value', async () => {
    const old = await svc.remember({
      text: 'We set the payment gateway timeout to 1500 ms.',
      project_id: 'pay',
    });
    const fresh = await svc.remember({
      text: 'We set the payment gateway timeout to 3000 ms.',
      project_id: 'pay',
    });
    assert.equal(fresh.outcome, 'stored', fresh.reason);
    assert.notEqual(fresh.id, old.id);
    assert.match(fresh.reason, /supersedes/);
    const before = await svc.get(old.id!);
    assert.equal(before.status, 'superseded');
    assert.equal(before.superseded_by, fresh.id);
    const r = await svc.recall({
      query: 'what is the payment gateway timeout?',
      project_ids: ['pay'],
      top_k: 5,
      mark_used: false,
    });
    const texts = r.items.filter((i) => i.kind === 'memory').map((i) => i.memory.text);
    assert.ok(
      texts.some((t) => t.includes('3000 ms')),
      texts.join(' | '),
    );
    assert.ok(
      !texts.some((t) => t.includes('1500 ms')),
      `the superseded value is not recalled: ${texts.join(' | ')}`,
    );
    assert.ok(svc.auditList({ memory_id: old.id }).some((e) => /superseded by/.test(e.note ?? '')));
  });

  test('a value changed and changed back is the value in use again, across sessions and within one; recall answers with it', async () => {
    const say = (...ms: string[]) =>
      svc.ingest({
        project_id: 'gw',
        source_type: 'chat',
        messages: ms.flatMap((m) => [
          { role: 'user' as const, content: `We set the search gateway timeout to ${m} ms.` },
          { role: 'assistant' as const, content: 'Noted.' },
        ]),
      });
    const inUse = async () =>
      (await svc.list({ project_id: 'gw', limit: 50 })).items
        .filter((m) => m.status === 'active')
        .map((m) => /(\d+) ms/.exec(m.text)?.[1]);
    await say('5000');
    await say('3000');
    assert.deepEqual(await inUse(), ['3000']);
    const back = await say('5000');
    assert.match(back.decisions.find((d) => d.outcome === 'refreshed')?.reason ?? '', /in use again/);
    assert.deepEqual(await inUse(), ['5000'], 'said again, the older value is the one in use');
    await say('7000', '5000');
    assert.deepEqual(await inUse(), ['5000'], 'changed and changed back in one session');
    await say('9000', '4000', '2000');
    assert.deepEqual(await inUse(), ['2000'], 'changed three times in one session: the last');
    const r = await svc.recall({
      query: 'what is the search gateway timeout?',
      project_ids: ['gw'],
      top_k: 5,
      mark_used: false,
    });
    const texts = r.items.filter((i) => i.kind === 'memory').map((i) => i.memory.text);
    assert.ok(
      texts.some((t) => t.includes('2000 ms')),
      texts.join(' | '),
    );
    assert.ok(
      !texts.some((t) => /(5000|7000|9000|4000|3000) ms/.test(t)),
      `no older value recalled: ${texts.join(' | ')}`,
    );
  });

  test('a paraphrase of the same fact still refreshes the memory it repeats', async () => {
    const a = await svc.remember({
      text: 'I always use vim, never suggest nano.',
      project_id: 'ed',
      category: 'persona',
    });
    const b = await svc.remember({
      text: 'I always use vim and never suggest nano.',
      project_id: 'ed',
      category: 'persona',
    });
    assert.equal(b.outcome, 'refreshed', b.reason);
    assert.equal(b.id, a.id);
  });

  test('when unsure, both go to review; the older stays recalled until the change is decided', async () => {
    const older = await svc.remember({ text: 'The deploy job timeout is 1500 ms.', project_id: 'rev' });
    const maybe = await svc.remember({
      text: 'The deploy job timeout is 1500 ms, retried 3 times.',
      project_id: 'rev',
    });
    assert.equal(maybe.outcome, 'pending', maybe.reason);
    assert.match(maybe.reason, new RegExp(`may change ${older.id}`));
    const o = await svc.get(older.id!);
    assert.equal(o.status, 'confirmed', 'the older keeps its status');
    assert.equal(o.contested_by, maybe.id);
    assert.equal((await svc.get(maybe.id!)).may_change, older.id);
    const review = await svc.list({ project_id: 'rev', include_global: false, in_review: true, limit: 50 });
    assert.deepEqual(review.items.map((m) => m.id).sort(), [older.id, maybe.id].sort(), 'both in review');
    const r = await svc.recall({
      query: 'what is the deploy job timeout?',
      project_ids: ['rev'],
      top_k: 5,
      min_confidence: 0,
      min_similarity: 0,
      mark_used: false,
    });
    assert.ok(
      r.items.some((i) => i.memory.id === older.id),
      'the older is still recalled meanwhile',
    );

    // Confirming the change decides it: the older is superseded, and neither waits any more.
    await svc.confirm({ id: maybe.id!, by: 'reviewer' });
    const after = await svc.get(older.id!);
    assert.equal(after.status, 'superseded');
    assert.equal(after.superseded_by, maybe.id);
    assert.equal(after.contested_by, undefined);
    assert.equal((await svc.get(maybe.id!)).supersedes, older.id);
    const left = await svc.list({ project_id: 'rev', include_global: false, in_review: true, limit: 50 });
    assert.equal(left.items.length, 0);

    // Marking a possible change wrong keeps the older as it was.
    const keep = await svc.remember({
      text: 'The cache warmup job runs for 90 seconds.',
      project_id: 'rev2',
    });
    const wrong = await svc.remember({
      text: 'The cache warmup job runs for 90 seconds, on 4 workers.',
      project_id: 'rev2',
    });
    assert.equal(wrong.outcome, 'pending', wrong.reason);
    await svc.markWrong({ id: wrong.id!, by: 'reviewer' });
    const kept = await svc.get(keep.id!);
    assert.equal(kept.status, 'confirmed');
    assert.equal(kept.contested_by, undefined);
  });

  test('an older conversation learned after a newer one does not undo it: its value is kept as the one before', async () => {
    // A backfill reads sessions in no particular order, and a live turn is learned before older ones.
    const say = (value: string, at: string) =>
      svc.ingest({
        project_id: 'late',
        source_type: 'chat',
        messages: [
          {
            role: 'user' as const,
            content: `We set the billing gateway timeout to ${value} ms.`,
            timestamp: at,
          },
          { role: 'assistant' as const, content: 'Noted.', timestamp: at },
        ],
      });
    const inUse = async () =>
      (await svc.list({ project_id: 'late', limit: 50 })).items
        .filter((m) => m.status === 'active')
        .map((m) => /(\d+) ms/.exec(m.text)?.[1]);
    await say('3000', '2026-11-20T10:00:00.000Z');
    const late = await say('1500', '2026-10-02T10:00:00.000Z');
    const kept = late.decisions.find((d) => d.outcome === 'stored');
    assert.match(kept?.reason ?? '', /the value before/, JSON.stringify(late.decisions));
    assert.deepEqual(await inUse(), ['3000'], 'the newer value stays in use');
    const older = await svc.get(kept!.id!);
    assert.equal(older.status, 'superseded');
    const current = (await svc.list({ project_id: 'late', limit: 50 })).items.find(
      (m) => m.status === 'active',
    )!;
    assert.equal(older.superseded_by, current.id, 'linked to the value that replaced it');
    // The old value seen again in another old conversation: seen, not in use again.
    await say('1500', '2026-10-09T10:00:00.000Z');
    assert.deepEqual(await inUse(), ['3000'], 'an older sighting does not bring the old value back');
    // Said again after the newer one: in use again, as before.
    await say('1500', '2026-12-01T10:00:00.000Z');
    assert.deepEqual(await inUse(), ['1500'], 'said again later, the older value is the one in use');

    // A message without a time of its own has no time to compare: the order learned decides, as before.
    const undated = (value: string) =>
      svc.ingest({
        project_id: 'late',
        source_type: 'chat',
        messages: [
          { role: 'user' as const, content: `We set the billing gateway timeout to ${value} ms.` },
          { role: 'assistant' as const, content: 'Noted.' },
        ],
      });
    await undated('6000');
    assert.deepEqual(await inUse(), ['6000'], 'an undated value learned last is in use');
    await say('7000', '2026-10-15T10:00:00.000Z');
    assert.deepEqual(await inUse(), ['7000'], 'a dated value learned after an undated one replaces it');
  });
});
