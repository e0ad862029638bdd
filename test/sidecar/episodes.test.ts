/**
 * Evidence, who and when, hybrid recall — through the real service, store, lexical index and model:
 * every turn of a named multi-party transcript is kept as an episode; a fact the rules drop is still
 * recalled as evidence with its speaker, date and message id; a rare name is found by the lexical channel;
 * relative times are resolved; nothing crosses projects; long sessions are read to the end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MnemoService } from '../../sidecar/service';
import { cleanupDataDir, inProcessService, tempDataDir } from '../support/sidecarSession';

const SESSION = {
  project_id: 'friends',
  source_type: 'chat' as const,
  session_id: 'D1',
  messages: [
    {
      id: 'D1:1',
      role: 'user',
      name: 'Caroline',
      content: 'Hey Mel! How was your weekend?',
      timestamp: '2023-05-08T13:56:00Z',
    },
    {
      id: 'D1:2',
      role: 'user',
      name: 'Melanie',
      content: 'Great! I took the kids camping near Fort Wayne yesterday.',
      timestamp: '2023-05-08T13:57:00Z',
    },
    {
      id: 'D1:3',
      role: 'user',
      name: 'Caroline',
      content: 'That one is Max, my childhood dog.',
      timestamp: '2023-05-08T13:58:00Z',
    },
    {
      id: 'D1:4',
      role: 'user',
      name: 'Melanie',
      content: 'So cute! We decided to adopt a beagle next month.',
      timestamp: '2023-05-08T13:59:00Z',
    },
    {
      id: 'D1:5',
      role: 'user',
      name: 'Caroline',
      content: 'I always drink oolong tea in the morning, never coffee.',
      timestamp: '2023-05-08T14:00:00Z',
    },
  ],
};

describe('episodes and hybrid recall', () => {
  const dataDir = tempDataDir();
  let svc: MnemoService;
  before(async () => {
    svc = inProcessService(dataDir, {}, { clock: () => new Date('2026-11-20T08:00:00.000Z') });
    await svc.start();
  });
  after(async () => {
    await svc.dispose();
    cleanupDataDir(dataDir);
  });

  test('every turn is kept as an episode, with speaker and the message’s own time', async () => {
    const report = await svc.ingest({ ...SESSION, explain: true });
    assert.equal(report.episodes, 5);
    const r = await svc.recall({
      query: 'What was the name of Caroline’s childhood dog?',
      project_ids: ['friends'],
      top_k: 5,
      mark_used: false,
    });
    const hit = r.items.find((i) => i.source_ref.includes('msg:D1:3'));
    assert.ok(
      hit,
      `the turn about Max is recalled: ${JSON.stringify(r.items.map((i) => [i.kind, i.memory.text]))}`,
    );
    const evidence = r.items.find((i) => i.kind === 'evidence' && i.episode?.message_id === 'D1:3');
    if (evidence) {
      assert.equal(evidence.episode!.speaker, 'Caroline');
      assert.equal(evidence.episode!.occurred_at, '2023-05-08T13:58:00.000Z');
      assert.match(r.block, /\[Evidence\] 2023-05-08 · Caroline · from: the user's own words \(msg:D1:3\)/);
    }
    assert.ok(r.items.every((i) => i.channels.length > 0 && i.channels.includes(i.channel)));
  });

  test('a rare name is found by the lexical channel, and "yesterday" is resolved to its date', async () => {
    const r = await svc.recall({ query: 'Fort Wayne', project_ids: ['friends'], top_k: 3, mark_used: false });
    const hit = r.items.find((i) => i.source_ref.includes('msg:D1:2'));
    assert.ok(hit, JSON.stringify(r.items.map((i) => i.memory.text)));
    assert.ok(hit.channels.includes('lexical'), `channels: ${hit.channels.join(', ')}`);
    const times = hit.episode?.times ?? hit.memory.times ?? [];
    assert.deepEqual(
      times.map((t) => [t.text, t.start]),
      [['yesterday', '2023-05-07']],
    );
  });

  test('first-person facts of a named transcript are attributed to their speaker', async () => {
    const list = await svc.list({ project_id: 'friends' });
    const tea = list.items.find((m) => /oolong/.test(m.text));
    assert.ok(tea, `memories: ${list.items.map((m) => m.text).join(' | ')}`);
    assert.match(tea.text, /^Caroline: I always drink oolong tea/);
    assert.equal(tea.speaker, 'Caroline');
    assert.equal(tea.occurred_at, '2023-05-08T14:00:00.000Z');
  });

  test('a memory that is a whole turn is refreshed when said again, linked from both turns and recalled by meaning', async () => {
    const [tea] = (await svc.list({ project_id: 'friends' })).items.filter((m) => /oolong/.test(m.text));
    assert.ok(tea);
    // The memory's text is the turn's own ("Caroline: " + what she said): one vector serves both.
    assert.equal(tea.text, `Caroline: ${SESSION.messages[4]!.content}`);
    const report = await svc.ingest({
      project_id: 'friends',
      source_type: 'chat',
      session_id: 'D2',
      explain: true,
      messages: [
        {
          id: 'D2:1',
          role: 'user',
          name: 'Caroline',
          content: 'I always drink oolong tea in the morning, never coffee.',
          timestamp: '2023-06-02T08:00:00Z',
        },
        {
          id: 'D2:2',
          role: 'user',
          name: 'Melanie',
          content: 'Ha, you told me that last month already!',
          timestamp: '2023-06-02T08:01:00Z',
        },
      ],
    });
    const again = report.decisions.find((d) => /oolong/.test(d.text));
    assert.equal(again?.outcome, 'refreshed', JSON.stringify(report.decisions));
    assert.equal(again?.id, tea.id);
    assert.equal(
      (await svc.list({ project_id: 'friends' })).items.filter((m) => /oolong/.test(m.text)).length,
      1,
    );
    const turns = await svc.episodes.find({ session_id: 'D2' });
    assert.deepEqual(turns.find((e) => e.message_id === 'D2:1')?.memory_ids, [tea.id]);
    const r = await svc.recall({
      query: 'Which hot beverage does she like at breakfast?',
      project_ids: ['friends'],
      top_k: 5,
      mark_used: false,
    });
    const hit = r.items.find((i) => i.kind === 'memory' && i.memory.id === tea.id);
    assert.ok(hit, JSON.stringify(r.items.map((i) => [i.kind, i.memory.text])));
    assert.ok(hit.channels.includes('vector'), `channels: ${hit.channels.join(', ')}`);
    assert.ok(
      hit.source_ref.includes('msg:D1:5') && hit.source_ref.includes('msg:D2:1'),
      hit.source_ref.join(' '),
    );
  });

  test('episodes never cross projects', async () => {
    const r = await svc.recall({
      query: 'childhood dog Max camping Fort Wayne oolong',
      project_ids: ['work'],
      top_k: 10,
      mark_used: false,
    });
    assert.deepEqual(r.items, []);
  });

  test('a long session is read to its end: a fact in its first message is learned, none is cut silently', async () => {
    const filler = Array.from({ length: 60 }, (_, i) => ({
      id: `L:${i + 2}`,
      role: i % 2 ? 'assistant' : 'user',
      content: `Status update ${i}: the nightly job finished and the dashboards look normal again for team ${i}.`,
    }));
    const messages = [
      {
        id: 'L:1',
        role: 'user',
        content: 'We set the payment gateway timeout to 4500 ms for the EU region.',
      },
      ...filler,
    ];
    const report = await svc.ingest({
      project_id: 'long',
      source_type: 'chat',
      session_id: 'L',
      messages,
      explain: true,
    });
    assert.equal(report.episodes, 61);
    assert.ok(
      report.decisions.some((d) => d.outcome !== 'dropped' && /4500 ms/.test(d.text)),
      'the first message (outside the last 4,000 characters) reached the rules',
    );
    const r = await svc.recall({
      query: 'payment gateway timeout EU',
      project_ids: ['long'],
      top_k: 3,
      mark_used: false,
    });
    assert.ok(r.items.some((i) => i.source_ref.includes('msg:L:1')));
  });

  test('a turn whose only memory the user marked wrong is no longer quoted as evidence', async () => {
    await svc.ingest({
      project_id: 'wrong',
      source_type: 'chat',
      session_id: 'W1',
      messages: [
        {
          id: 'W1:1',
          role: 'user',
          name: 'Priya',
          content: 'My favourite tea is jasmine pearl, I drink it every afternoon.',
          timestamp: '2023-06-01T09:00:00Z',
        },
        {
          id: 'W1:2',
          role: 'user',
          name: 'Tom',
          content: 'Jasmine pearl smells lovely when the tea leaves open up.',
          timestamp: '2023-06-01T09:01:00Z',
        },
      ],
    });
    const ask = () =>
      svc.recall({ query: 'Which tea does Priya like?', project_ids: ['wrong'], top_k: 5, mark_used: false });
    const list = await svc.list({ project_id: 'wrong' });
    const tea = list.items.find((m) => /jasmine pearl/.test(m.text) && m.speaker === 'Priya');
    assert.ok(tea, `memories: ${list.items.map((m) => m.text).join(' | ')}`);
    const before = await ask();
    assert.ok(
      before.items.some((i) => i.source_ref.includes('msg:W1:1')),
      'recalled before the feedback',
    );

    await svc.markWrong({ id: tea.id });
    const after = await ask();
    const shown = JSON.stringify(after.items.map((i) => [i.kind, i.memory.text]));
    assert.ok(!after.items.some((i) => i.source_ref.includes('msg:W1:1')), shown);
    assert.doesNotMatch(after.block, /favourite tea/, after.block);
    // the other speaker's turn, which no wrong memory came from, is still evidence
    assert.ok(
      after.items.some((i) => i.source_ref.includes('msg:W1:2')),
      shown,
    );
  });

  test('retention: turns said before the cut-off are deleted from the store and the lexical index', async () => {
    const n = await svc.episodes.deleteOlderThan('2023-05-08T13:58:30Z');
    assert.equal(n, 3);
    const r = await svc.recall({
      query: 'Fort Wayne camping',
      project_ids: ['friends'],
      top_k: 5,
      mark_used: false,
    });
    assert.ok(
      !r.items.some((i) => i.kind === 'evidence' && i.episode?.message_id === 'D1:2'),
      JSON.stringify(r.items.map((i) => i.memory.text)),
    );
  });
});
