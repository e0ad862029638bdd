import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import {
  InvalidSessionError,
  MAX_KEPT_MESSAGE_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_SESSION_CHARS,
  capMessage,
  cleanText,
  mapRole,
  normalizeSession,
  splitPieces,
  toUtcIso,
} from '../../sidecar/pipeline/normalize';
import type { RawMessage, SessionInput } from '../../sidecar/pipeline/types';

const FIXED = new Date('2026-05-15T12:30:00.000Z');
const clock = (): Date => FIXED;
const session = (messages: RawMessage[]): SessionInput => ({
  project_id: 'SCADA-V2.3',
  source_type: 'chat',
  messages,
});

describe('normalizeSession', () => {
  it('maps every role alias; unknown roles become user', () => {
    const roles = [
      'human',
      'user',
      'ai',
      'assistant',
      'bot',
      'model',
      'system',
      'tool',
      'function',
      'Narrator',
      'ASSISTANT',
    ];
    assert.deepEqual(roles.map(mapRole), [
      'user',
      'user',
      'assistant',
      'assistant',
      'assistant',
      'assistant',
      'system',
      'tool',
      'tool',
      'user',
      'assistant',
    ]);
    const { messages } = normalizeSession(
      session([
        { role: 'human', content: '我习惯用vim，不要用nano' },
        { role: 'bot', content: '好的，以后默认推荐 vim 配置。' },
      ]),
      clock,
    );
    assert.deepEqual(
      messages.map((m) => m.role),
      ['user', 'assistant'],
    );
  });

  it('keeps given ids and numbers the others m<index> by their position in the input', () => {
    const { messages } = normalizeSession(
      session([
        { role: 'user', content: 'PLC-3000 通讯超时阈值设为 1500ms', id: 'abc' },
        { role: 'user', content: '   ' },
        { role: 'user', content: '部署前先跑 hugo --minify 测试' },
      ]),
      clock,
    );
    assert.deepEqual(
      messages.map((m) => m.id),
      ['abc', 'm2'],
    );
  });

  it('converts timestamps to UTC with Z: offsets, epoch ms, epoch s, naive ISO as UTC, missing -> clock', () => {
    const { messages } = normalizeSession(
      session([
        { role: 'user', content: '柏林同事下午3点报的故障 one', timestamp: '2024-05-22T15:00:00+02:00' },
        { role: 'user', content: 'epoch millis line two here', timestamp: 1716386400000 },
        { role: 'user', content: 'epoch seconds line three', timestamp: 1716386400 },
        { role: 'user', content: 'naive local time four', timestamp: '2024-05-22 13:00:00' },
        { role: 'user', content: 'no timestamp at all five' },
      ]),
      clock,
    );
    assert.deepEqual(
      messages.map((m) => m.timestamp),
      [
        '2024-05-22T13:00:00.000Z',
        '2024-05-22T14:00:00.000Z',
        '2024-05-22T14:00:00.000Z',
        '2024-05-22T13:00:00.000Z',
        '2026-05-15T12:30:00.000Z',
      ],
    );
    assert.equal(toUtcIso('2024-05-22T14:30:00-07:30'), '2024-05-22T22:00:00.000Z');
    assert.equal(toUtcIso('2024-02-30T00:00:00Z'), undefined);
  });

  it('strips ANSI colours, cursor codes and OSC titles from terminal captures', () => {
    const raw =
      '\u001b[1;31mERROR\u001b[0m: connect ECONNREFUSED 127.0.0.1:5432\u001b]0;title\u0007\r\n\u001b[2K\rprogress 10%\rprogress 100%';
    assert.equal(cleanText(raw), 'ERROR: connect ECONNREFUSED 127.0.0.1:5432\nprogress 100%');
  });

  it('cuts each message to 500 characters without splitting a token', () => {
    const token = 'ghp_' + 'A1b2C3d4E5'.repeat(4);
    const content = 'x'.repeat(480) + ' ' + token + ' tail';
    const { messages } = normalizeSession(
      session([
        { role: 'user', content },
        { role: 'user', content: '第二条有内容的消息' },
      ]),
      clock,
    );
    assert.ok([...messages[0]!.content].length <= MAX_MESSAGE_CHARS);
    assert.ok(!messages[0]!.content.includes('ghp_'), 'a token straddling the limit is left out whole');
    const zh = '中'.repeat(800);
    const r = normalizeSession(
      session([
        { role: 'user', content: zh },
        { role: 'user', content: '第二条有内容的消息' },
      ]),
      clock,
    );
    assert.equal([...r.messages[0]!.content].length, MAX_MESSAGE_CHARS);
  });

  it('keeps only the last 4,000 characters of a session (newest messages win)', () => {
    const messages: RawMessage[] = Array.from({ length: 20 }, (_, i) => ({
      role: 'user',
      content: `第${i}条：` + '记'.repeat(400),
      id: `q${i}`,
    }));
    const r = normalizeSession(session(messages), clock);
    const total = r.messages.reduce((n, m) => n + [...m.content].length, 0);
    assert.ok(total <= MAX_SESSION_CHARS, `total ${total}`);
    assert.equal(r.messages[r.messages.length - 1]!.id, 'q19');
    assert.ok(!r.messages.some((m) => m.id === 'q0'), 'oldest messages are dropped');
  });

  it('skips sessions with fewer than 2 substantive lines, with a reason (docs/design.md)', () => {
    const r = normalizeSession(
      session([
        { role: 'user', content: '你好' },
        { role: 'assistant', content: '在的，有什么可以帮你？' },
      ]),
      clock,
    );
    assert.match(r.skipped ?? '', /1 substantive line/);
    const greetings = normalizeSession(
      session([
        { role: 'user', content: 'hi' },
        { role: 'user', content: 'thanks!' },
      ]),
      clock,
    );
    assert.match(greetings.skipped ?? '', /0 substantive lines/);
    const ok = normalizeSession(
      session([
        { role: 'user', content: '我习惯用vim编辑器，不要给我推荐nano' },
        { role: 'user', content: '我的项目统一用Python 3.11' },
      ]),
      clock,
    );
    assert.equal(ok.skipped, undefined);
  });

  it('rejects malformed sessions with one clear sentence', () => {
    const bad: Array<[unknown, RegExp]> = [
      [
        { project_id: 'p', source_type: 'chat', messages: 'hello' },
        /"messages" must be an array, got a string\./,
      ],
      [
        { project_id: 'p', source_type: 'chat', messages: [{ role: 'user', content: 42 }] },
        /Message 0 "content" must be a string, got a number\./,
      ],
      [
        { project_id: 'p', source_type: 'chat', messages: [{ content: 'x' }] },
        /Message 0 "role" must be a string/,
      ],
      [{ project_id: 'p', source_type: 'chat', messages: [null] }, /Message 0 must be an object, got null\./],
      [
        {
          project_id: 'p',
          source_type: 'chat',
          messages: [{ role: 'user', content: 'x', timestamp: 'yesterday' }],
        },
        /not ISO-8601 or epoch/,
      ],
      [null, /A session must be an object/],
    ];
    for (const [input, re] of bad) {
      assert.throws(
        () => normalizeSession(input as SessionInput, clock),
        (err: unknown) => {
          assert.ok(err instanceof InvalidSessionError);
          assert.match((err as Error).message, re);
          assert.equal(
            (err as Error).message.split(/[.!?](?:\s|$)/).filter(Boolean).length,
            1,
            'one sentence',
          );
          return true;
        },
      );
    }
  });
});

test('splitPieces: pieces of at most max code points, cut at sentence ends, nothing lost', () => {
  const text =
    'First sentence here. Second one follows! 第三句。 Then a long token sk_live_abcdefghijklmnop and 😀 end.';
  for (const max of [7, 20, 40]) {
    const pieces = splitPieces(text, max);
    for (const p of pieces) assert.ok([...p].length <= max, `${JSON.stringify(p)} is longer than ${max}`);
    assert.equal(pieces.join(' ').replace(/\s+/g, ''), text.replace(/\s+/g, ''));
  }
  assert.deepEqual(splitPieces('One two three. Four five six. Seven eight.', 20), [
    'One two three.',
    'Four five six.',
    'Seven eight.',
  ]);
  assert.deepEqual(splitPieces('short', 500), ['short']);
});

test('splitPieces reads a text without sentence ends in one pass (a 1 MB log)', () => {
  const text = 'abc '.repeat(250_000);
  const pieces = splitPieces(text, 500);
  assert.equal(pieces.length, 2000);
  assert.ok(pieces.every((p) => p.length <= 500));
});

test('capMessage keeps the head and the tail of a long message with a note, at line breaks', () => {
  const line = (i: number): string => `line ${i} of the build log, all fine\n`;
  let text = '';
  for (let i = 0; text.length < 300_000; i++) text += line(i);
  const { text: kept, cut } = capMessage(text);
  assert.ok(cut && cut.total === text.length && cut.kept < MAX_KEPT_MESSAGE_CHARS);
  assert.ok(kept.length <= MAX_KEPT_MESSAGE_CHARS);
  assert.ok(kept.startsWith(line(0)) && kept.endsWith(text.slice(-line(0).length).trimStart()));
  assert.match(
    kept,
    /\n\[… [\d,]+ characters of this [\d,]+-character message left out: Mnemo keeps the first 150,000 and the last 49,000 of a message …\]\n/,
  );
  assert.ok(
    kept.split('\n').every((l) => /^line \d+ of the build log, all fine$|^\[…|^$/.test(l)),
    'cut at line breaks',
  );
  assert.deepEqual(capMessage(kept), { text: kept }, 'a cut message is not cut again');
  assert.deepEqual(capMessage('short'), { text: 'short' });
  // A token straddling the cut is left out whole: no half secret reaches the redact stage.
  const token = `sk-${'a'.repeat(60)}`;
  const noLines = 'x '.repeat(75_000 - 30) + token + ' y'.repeat(100_000);
  const c = capMessage(noLines).text;
  assert.ok(!/sk-a+/.test(c) || c.includes(token));
});
