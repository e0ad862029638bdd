/**
 * An evidence excerpt carries its conversational context — through the real service, store, lexical index
 * and model: a recalled turn that asks is quoted with the other speaker's reply after it, and the item
 * cites both messages; a short comment with the statement before it; the best items go on with the turns
 * said after them until a pause; the quoted text is in the block and counted against the budget; a neighbour is
 * never taken from another session or project; a reply whose memory was marked wrong is not quoted; the
 * reply's relative time is resolved against its own timestamp.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { episodeId, type Episode } from '../../sidecar/model';
import type { RecallItem, RecallResult } from '../../sidecar/protocol';
import { estimateTokens } from '../../sidecar/recall/format';
import { MnemoService } from '../../sidecar/service';
import { cleanupDataDir, inProcessService, tempDataDir } from '../support/sidecarSession';

type Msg = { id: string; name: string; content: string; timestamp: string };
const chat = (project_id: string, session_id: string, messages: Msg[]) => ({
  project_id,
  source_type: 'chat' as const,
  session_id,
  messages: messages.map((m) => ({ ...m, role: m.name === 'assistant' ? 'assistant' : 'user' })),
});

const show = (r: RecallResult) => JSON.stringify(r.items.map((i) => [i.kind, i.source_ref, i.memory.text]));
const citing = (r: RecallResult, id: string): RecallItem | undefined =>
  r.items.find((i) => i.source_ref.includes(`msg:${id}`));

describe('evidence excerpts carry their conversational context', () => {
  const dataDir = tempDataDir();
  let svc: MnemoService;
  const ask = (query: string, project: string, extra: { top_k?: number; token_budget?: number } = {}) =>
    svc.recall({ query, project_ids: [project], top_k: 5, mark_used: false, ...extra });

  before(async () => {
    svc = inProcessService(dataDir, {}, { clock: () => new Date('2026-11-20T08:00:00.000Z') });
    await svc.start();
    // The question matches the recall's words; the answer shares none of them.
    await svc.ingest(
      chat('home', 'H1', [
        {
          id: 'H1:1',
          name: 'Zhao',
          content: '赵敏，你们一家什么时候搬进新家的？',
          timestamp: '2026-02-28T23:50:00Z',
        },
        { id: 'H1:2', name: 'Min', content: '上个月搬的，东西还没收拾完', timestamp: '2026-03-01T00:05:00Z' },
        { id: 'H1:3', name: 'Zhao', content: '那改天去你家吃饭。', timestamp: '2026-03-01T00:24:00Z' },
      ]),
    );
    // A question that ends its session; the next session opens a minute later with a reply-like turn.
    await svc.ingest(
      chat('home', 'H2', [
        {
          id: 'H2:1',
          name: 'Min',
          content: 'Which dentist does Zhao go to?',
          timestamp: '2026-04-01T10:00:00Z',
        },
      ]),
    );
    await svc.ingest(
      chat('home', 'H3', [
        { id: 'H3:1', name: 'Zhao', content: 'Dr Okafor on Elm Street.', timestamp: '2026-04-01T10:01:00Z' },
      ]),
    );
    // Another project with the same session id, speaking right after the question of H2.
    await svc.ingest(
      chat('other', 'H2', [
        {
          id: 'O:1',
          name: 'Zhao',
          content: 'Dr Lindqvist near the station.',
          timestamp: '2026-04-01T10:00:30Z',
        },
      ]),
    );
    // An announcement whose cause comes three turns later, after a greeting and a question.
    await svc.ingest(
      chat('release', 'R1', [
        {
          id: 'R1:1',
          name: 'Elena',
          content: 'the login crash is back. I want to scream',
          timestamp: '2025-06-17T13:20:00Z',
        },
        { id: 'R1:2', name: 'Ravi', content: 'hi, kind of awake', timestamp: '2025-06-17T13:22:16Z' },
        { id: 'R1:3', name: 'Ravi', content: 'same stack trace?', timestamp: '2025-06-17T13:25:16Z' },
        {
          id: 'R1:4',
          name: 'Elena',
          content:
            'yes, the Keychain read on cold start returns nil when the app is launched from a push notification',
          timestamp: '2025-06-17T13:27:50Z',
        },
        { id: 'R1:5', name: 'Ravi', content: 'ok, patching it', timestamp: '2025-06-17T13:29:37Z' },
        {
          id: 'R1:6',
          name: 'Elena',
          content: 'the crash is fixed now, lunch?',
          timestamp: '2025-06-17T14:10:00Z',
        },
      ]),
    );
    // A statement, the other speaker's follow-up question, and the answer to it.
    await svc.ingest(
      chat('house', 'F1', [
        { id: 'F1:1', name: '钱多多', content: '房子定了！', timestamp: '2026-05-10T12:42:00Z' },
        { id: 'F1:2', name: 'assistant', content: '恭喜！最后选了哪里？', timestamp: '2026-05-10T12:42:30Z' },
        {
          id: 'F1:3',
          name: '钱多多',
          content: '余杭未来科技城的一套三居，89 平，总价 285 万',
          timestamp: '2026-05-10T12:44:00Z',
        },
        {
          id: 'F1:4',
          name: 'assistant',
          content: '比预算还低一些，不错。',
          timestamp: '2026-05-10T12:46:00Z',
        },
      ]),
    );
    await svc.ingest(
      chat('tea', 'T1', [
        {
          id: 'T1:1',
          name: 'Tom',
          content: 'Which tea does Priya drink in the afternoon?',
          timestamp: '2023-06-01T09:00:00Z',
        },
        {
          id: 'T1:2',
          name: 'Priya',
          content: 'My favourite tea is jasmine pearl, I drink it every afternoon.',
          timestamp: '2023-06-01T09:01:00Z',
        },
      ]),
    );
  });
  after(async () => {
    await svc.dispose();
    cleanupDataDir(dataDir);
  });

  test('a recalled question brings the reply after it, and the excerpt cites both messages', async () => {
    const r = await ask('赵敏一家是哪天搬进新家的？', 'home');
    const item = citing(r, 'H1:1');
    assert.ok(item, show(r));
    assert.equal(item.kind, 'evidence');
    assert.deepEqual(
      item.source_ref.filter((x) => x.startsWith('msg:')),
      ['msg:H1:1', 'msg:H1:2'],
    );
    assert.deepEqual(item.memory.source_ref, item.source_ref);
    assert.deepEqual(
      item.turns?.map((t) => t.message_id),
      ['H1:1', 'H1:2'],
    );
    assert.equal(
      item.memory.text,
      'Zhao: 赵敏，你们一家什么时候搬进新家的？\nMin: 上个月搬的，东西还没收拾完',
    );
    assert.match(
      r.block,
      /\[Evidence\] 2026-02-28 · Zhao, Min · from: the user's own words \(msg:H1:1, msg:H1:2\)/,
    );
    assert.match(r.block, /> Zhao: 赵敏，你们一家什么时候搬进新家的？\n> Min: 上个月搬的，东西还没收拾完/);
    // the reply is not quoted a second time on its own (a memory learned from it may still be recalled)
    assert.equal(
      r.items.filter((i) => i.kind === 'evidence' && i.source_ref.includes('msg:H1:2')).length,
      1,
      show(r),
    );
    // the turn after the reply, 19 minutes later, is not the same exchange
    assert.ok(!item.source_ref.includes('msg:H1:3'));
  });

  test('the best item goes on with its exchange: the turns said after it, until a long pause', async () => {
    const r = await ask('What caused the login crash and how was it fixed?', 'release');
    const item = citing(r, 'R1:1');
    assert.ok(item, show(r));
    assert.equal(r.items.indexOf(item), 0, show(r));
    // the announcement, then the greeting and the question in between, up to the cause three turns later —
    // which a memory learned from it says already, so it is shown once, as that memory
    assert.deepEqual(
      item.turns?.map((t) => t.message_id),
      ['R1:1', 'R1:2', 'R1:3'],
    );
    const cause = citing(r, 'R1:4');
    assert.ok(cause && cause.kind === 'memory', show(r));
    assert.equal(r.block.match(/the Keychain read on cold start returns nil/g)?.length, 1, r.block);
    // a turn after a pause of 40 minutes is another exchange (recalled on its own, if at all)
    assert.ok(!item.source_ref.includes('msg:R1:6'), show(r));
  });

  test('a statement followed by the other speaker’s question is quoted with that question and its answer', async () => {
    const r = await ask('钱多多什么时候定下房子的？', 'house');
    const item = citing(r, 'F1:1');
    assert.ok(item, show(r));
    assert.deepEqual(
      item.source_ref.filter((x) => x.startsWith('msg:')),
      ['msg:F1:1', 'msg:F1:2', 'msg:F1:3', 'msg:F1:4'],
    );
    assert.match(
      r.block,
      /\(msg:F1:1, msg:F1:2, msg:F1:3, msg:F1:4\)\n> 钱多多: 房子定了！\n> assistant: 恭喜！最后选了哪里？\n> 钱多多: 余杭未来科技城/,
    );
    // the best item goes on with the comment said two minutes later
    assert.deepEqual(
      item.turns?.map((t) => t.message_id),
      ['F1:1', 'F1:2', 'F1:3', 'F1:4'],
    );
  });

  test('an assistant’s short comment is quoted with the statement it comments on', async () => {
    const r = await ask('比预算还低吗？', 'house', { top_k: 10 });
    const item = r.items.find((i) => i.kind === 'evidence' && i.episode?.message_id === 'F1:4');
    assert.ok(item, show(r));
    assert.deepEqual(item.turns?.map((t) => t.message_id).slice(0, 2), ['F1:3', 'F1:4']);
  });

  test('the reply’s relative time is resolved against its own timestamp, not the question’s', async () => {
    const r = await ask('赵敏一家是哪天搬进新家的？', 'home');
    const item = citing(r, 'H1:1');
    assert.ok(item, show(r));
    // said on 1 March just after midnight, ten minutes after the question of 28 February: 上个月 is February
    assert.deepEqual(
      (item.memory.times ?? []).map((t) => [t.text, t.start, t.end]),
      [['上个月', '2026-02-01', '2026-02-28']],
    );
    assert.match(r.block, /上个月 = 2026-02-01\.\.2026-02-28/);
  });

  test('the quoted context counts against the token budget: an excerpt is shown whole or not at all', async () => {
    const full = await ask('赵敏一家是哪天搬进新家的？', 'home', { top_k: 1 });
    assert.equal(full.items.length, 1, show(full));
    assert.equal(full.items[0]!.turns?.length, 2, show(full));
    assert.ok(full.tokens >= estimateTokens(full.block), `${full.tokens} tokens for the block`);
    // a budget that holds the question alone but not the question with its reply
    const tight = await ask('赵敏一家是哪天搬进新家的？', 'home', {
      top_k: 1,
      token_budget: full.tokens - 5,
    });
    assert.deepEqual(tight.items, []);
    assert.equal(tight.block, '');
    assert.ok(full.tokens <= 800);
  });

  test('a neighbour is never taken from another session or another project', async () => {
    const r = await ask('Which dentist does Zhao go to?', 'home', { top_k: 10 });
    const q = citing(r, 'H2:1');
    assert.ok(q, show(r));
    assert.deepEqual(
      q.source_ref.filter((x) => x.startsWith('msg:')),
      ['msg:H2:1'],
    );
    assert.equal(q.turns, undefined);
    assert.doesNotMatch(r.block, /Lindqvist/);
    assert.ok(!r.items.some((i) => i.source_ref.includes('msg:O:1')), show(r));
  });

  test('episodes kept before the turn links find their reply by time, in their own session and project', async () => {
    const turn = (
      project: string,
      session: string,
      id: string,
      speaker: string,
      text: string,
      at: string,
    ) => {
      const e: Episode = {
        id: episodeId(project, session, id, text),
        project_id: project,
        session_id: session,
        message_id: id,
        role: 'user',
        speaker,
        text,
        occurred_at: at,
        source_type: 'chat',
        source_ref: [`msg:${id}`],
        times: [],
        memory_ids: [],
        created_at: at,
      };
      return e; // no previous_id / next_id: as Mnemo kept episodes before it linked them
    };
    const old = [
      turn('old', 'S', 'S:1', 'Ada', 'Which gym does Ben train at?', '2025-01-10T18:00:00.000Z'),
      turn('old', 'S2', 'S2:1', 'Ben', 'Ironworks on Canal Road.', '2025-01-10T18:00:20.000Z'),
      turn('old2', 'S', 'X:1', 'Ben', 'Pulse Fitness by the river.', '2025-01-10T18:00:40.000Z'),
      turn('old', 'S', 'S:2', 'Ben', 'The climbing hall next to the library.', '2025-01-10T18:01:00.000Z'),
    ];
    const vectors = await svc.embedding.embed(old.map((e) => `${e.speaker}: ${e.text}`));
    await svc.episodes.upsert(old.map((episode, i) => ({ episode, vector: vectors[i]! })));
    const r = await ask('Which gym does Ben train at?', 'old', { top_k: 10 });
    const q = citing(r, 'S:1');
    assert.ok(q, show(r));
    assert.deepEqual(
      q.source_ref.filter((x) => x.startsWith('msg:')),
      ['msg:S:1', 'msg:S:2'],
    );
    assert.doesNotMatch(q.memory.text, /Ironworks|Pulse/);
    assert.ok(!r.items.some((i) => i.source_ref.includes('msg:X:1')), show(r));
  });

  test('a reply whose memory the user marked wrong is not quoted with its question', async () => {
    const query = 'Which tea does Priya drink in the afternoon?';
    const before = await ask(query, 'tea');
    assert.ok(citing(before, 'T1:2'), show(before));
    const list = await svc.list({ project_id: 'tea' });
    const tea = list.items.find((m) => /jasmine pearl/.test(m.text));
    assert.ok(tea, `memories: ${list.items.map((m) => m.text).join(' | ')}`);
    await svc.markWrong({ id: tea.id });

    const after = await ask(query, 'tea');
    assert.ok(!after.items.some((i) => i.source_ref.includes('msg:T1:2')), show(after));
    assert.doesNotMatch(after.block, /jasmine pearl/, after.block);
    const q = citing(after, 'T1:1');
    assert.ok(q, show(after));
    assert.equal(q.turns, undefined);
  });
});
