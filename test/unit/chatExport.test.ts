import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatParseError, parseChatJson } from '../../src/capture/chatExport';

test('a VS Code chat export becomes one session of questions and answers, with tool steps and file references', () => {
  const sessions = parseChatJson({
    requesterUsername: 'ed',
    responderUsername: 'GitHub Copilot',
    sessionId: 's1',
    requests: [
      {
        requestId: 'request_1',
        timestamp: 1_753_979_651_544,
        message: { text: 'How do I run the tests?', parts: [] },
        response: [
          { value: 'Use ', supportThemeIcons: false },
          { kind: 'inlineReference', inlineReference: { path: '/repo/package.json' } },
          { kind: 'markdownContent', content: { value: ' and run `npm test`.' } },
          { kind: 'toolInvocationSerialized', pastTenseMessage: { value: 'Read package.json' } },
          { kind: 'somethingNew', value: 'ignored' },
        ],
      },
      { requestId: 'request_2', message: { text: '   ' }, response: [] },
    ],
  });
  assert.equal(sessions.length, 1);
  const [s] = sessions;
  assert.equal(s.session_id, 's1');
  assert.equal(s.format, 'vscode-chat');
  assert.deepEqual(
    s.messages.map((m) => [m.role, m.id, m.name]),
    [
      ['user', 'request_1:q', 'ed'],
      ['assistant', 'request_1:a', 'GitHub Copilot'],
    ],
    'the empty second request adds nothing',
  );
  assert.equal(s.messages[0].content, 'How do I run the tests?');
  assert.equal(s.messages[0].timestamp, 1_753_979_651_544);
  assert.match(s.messages[1].content, /^Use `package\.json` and run `npm test`\./);
  assert.match(s.messages[1].content, /\[tool\] Read package\.json/);
  assert.doesNotMatch(s.messages[1].content, /ignored/);
});

test('a list of exported sessions gives one session each', () => {
  const one = (id: string) => ({
    sessionId: id,
    requests: [{ message: { text: `question ${id}` }, response: [{ value: `answer ${id}` }] }],
  });
  const sessions = parseChatJson([one('a'), one('b')]);
  assert.deepEqual(
    sessions.map((s) => [s.session_id, s.messages.map((m) => m.content)]),
    [
      ['a', ['question a', 'answer a']],
      ['b', ['question b', 'answer b']],
    ],
  );
});

test('OpenAI-style messages (plain or {messages}) keep roles, ids and timestamps; empty contents are skipped', () => {
  const [s] = parseChatJson([
    { role: 'system', content: 'be brief' },
    {
      role: 'user',
      content: [{ type: 'text', text: 'hi' }, { type: 'image_url' }],
      id: 'u1',
      created_at: '2026-01-02T03:04:05Z',
    },
    { role: 'assistant', content: '' },
    { role: 'assistant', content: 'hello', name: 'bot' },
  ]);
  assert.equal(s.format, 'openai');
  assert.deepEqual(
    s.messages.map((m) => [m.role, m.content, m.id]),
    [
      ['system', 'be brief', 'm0'],
      ['user', 'hi', 'u1'],
      ['assistant', 'hello', 'm3'],
    ],
  );
  assert.equal(s.messages[1].timestamp, '2026-01-02T03:04:05Z');
  assert.equal(s.messages[2].name, 'bot');
  const [wrapped] = parseChatJson({ messages: [{ role: 'user', content: 'from a wrapper' }] });
  assert.equal(wrapped.messages[0].content, 'from a wrapper');
});

test('unknown shapes are refused with one sentence', () => {
  const refuse = (doc: unknown, message: RegExp) =>
    assert.throws(
      () => parseChatJson(doc),
      (err: unknown) =>
        err instanceof ChatParseError && message.test(err.message) && !err.message.includes('\n'),
    );
  refuse({ foo: 1 }, /not a VS Code chat export/);
  refuse([], /empty list/);
  refuse([{ role: 'user', content: 'x' }, { requests: [] }], /neither VS Code chat sessions nor/);
  refuse({ messages: [{ content: 'no role' }] }, /Message 1 has no "role"/);
  refuse('just a string', /not a VS Code chat export/);
});
