/**
 * The extension's pure capture and display helpers, in the extension host: chat export parsing,
 * terminal output cleaning, the terminal message format, time formatting, file refs.
 */
import * as assert from 'node:assert/strict';
import { parseChatJson } from '../../../src/capture/chatExport';
import { boundOutput, sessionMessages, stripAnsi, type Execution } from '../../../src/capture/terminal';
import { parseFileRef } from '../../../src/commands/memoryActions';
import { compilePatterns, DEFAULT_TERMINAL_EXCLUDES } from '../../../src/config';
import { describeError } from '../../../src/errors';
import { formatLocalWithUtc, localDay } from '../../../src/time';

describe('capture helpers', () => {
  it('parses a VS Code chat export', () => {
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
          ],
        },
      ],
    });
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].session_id, 's1');
    assert.equal(sessions[0].messages[0].role, 'user');
    assert.equal(sessions[0].messages[0].content, 'How do I run the tests?');
    assert.match(sessions[0].messages[1].content, /Use `package\.json` and run `npm test`\./);
    assert.match(sessions[0].messages[1].content, /\[tool\] Read package\.json/);
  });

  it('parses OpenAI-style message arrays and rejects unknown shapes with one sentence', () => {
    const [s] = parseChatJson([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: 'hello' },
    ]);
    assert.deepEqual(
      s.messages.map((m) => [m.role, m.content]),
      [
        ['system', 'be brief'],
        ['user', 'hi'],
        ['assistant', 'hello'],
      ],
    );
    assert.throws(() => parseChatJson({ foo: 1 }), /not a VS Code chat export/);
  });

  it('strips ANSI escapes and shell-integration marks, and bounds output', () => {
    assert.equal(stripAnsi('\u001b]633;C\u0007\u001b[31merror\u001b[0m: x\r\nprogress 10%\rprogress 100%\n'), 'error: x\nprogress 100%\n');
    const long = `${'a'.repeat(10_000)}TAIL`;
    const bounded = boundOutput(long, 1024);
    assert.ok(Buffer.byteLength(bounded) <= 1100, `bounded to ${Buffer.byteLength(bounded)}`);
    assert.ok(bounded.endsWith('TAIL'));
    assert.match(bounded, /output truncated/);
  });

  // Whether a failure was fixed is decided once, by the sidecar's terminal stage (test/unit/terminal.test.ts).
  it('writes each command as `$ cmd` and its result as `exit N · output`', () => {
    const ex = (command: string, exitCode: number): Execution => ({ command, exitCode, startedAt: 0, endedAt: 1, output: '' });
    const msgs = sessionMessages('t1', [ex('make', 2)]);
    assert.deepEqual(
      msgs.map((m) => [m.role, m.content]),
      [
        ['user', '$ make'],
        ['tool', 'exit 2 · '],
      ],
    );
  });

  it('excludes trivial commands and anything with a password by default', () => {
    const { regexes, invalid } = compilePatterns(DEFAULT_TERMINAL_EXCLUDES);
    assert.deepEqual(invalid, []);
    const excluded = (c: string): boolean => regexes.some((r) => r.test(c));
    assert.ok(excluded('ls -la'));
    assert.ok(excluded('  cd src'));
    assert.ok(excluded('mysql --Password=hunter2'));
    assert.ok(!excluded('npm test'));
    assert.ok(!excluded('lsof -i :8080'));
  });

  it('formats times in the given zone with UTC beside, and days in that zone', () => {
    const s = formatLocalWithUtc('2025-03-01T18:30:00Z', 'Asia/Shanghai');
    assert.match(s, /2025/);
    assert.match(s, /02:30:00/);
    assert.match(s, /\(2025-03-01T18:30:00Z UTC\)/);
    assert.equal(localDay(new Date('2025-03-01T18:30:00Z'), 'Asia/Shanghai'), '2025-03-02');
    assert.equal(localDay(new Date('2025-03-01T18:30:00Z'), 'America/New_York'), '2025-03-01');
  });

  it('parses file:line source refs and maps error codes to one sentence', () => {
    assert.deepEqual(parseFileRef('src/app.ts:12'), { file: 'src/app.ts', line: 11 });
    assert.deepEqual(parseFileRef('file:src/app.ts:3:7'), { file: 'src/app.ts', line: 2 });
    assert.equal(parseFileRef('msg:abc'), undefined);
    assert.equal(parseFileRef('https://example.com:443'), undefined);
    assert.match(describeError({ code: -32010, message: '' }), /ChromaDB/);
    assert.equal(describeError({ code: -32004, message: 'No memory mem_1 exists.' }), 'No memory mem_1 exists.');
  });
});
