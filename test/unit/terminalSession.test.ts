import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  boundOutput,
  isExcludedCommand,
  sessionMessages,
  splitCommandChain,
  stripAnsi,
  type Execution,
} from '../../src/capture/terminalSession';

const ex = (
  command: string,
  exitCode: number | undefined,
  output = '',
  startedAt = 0,
  endedAt = 1,
): Execution => ({ command, exitCode, startedAt, endedAt, output });

test('output loses ANSI colours, shell-integration marks and progress overwrites', () => {
  assert.equal(
    stripAnsi('\u001b]633;C\u0007\u001b[31merror\u001b[0m: x\r\nprogress 10%\rprogress 100%\n'),
    'error: x\nprogress 100%\n',
  );
  assert.equal(stripAnsi('\u001b]0;title\u001b\\plain\u0007'), 'plain');
  assert.equal(stripAnsi('tab\tkept'), 'tab\tkept');
});

test('long output keeps its head and its tail (where errors are), within the byte bound', () => {
  const long = `HEAD${'a'.repeat(10_000)}TAIL`;
  const bounded = boundOutput(long, 1024);
  assert.ok(Buffer.byteLength(bounded) <= 1024 + 40, `bounded to ${Buffer.byteLength(bounded)} bytes`);
  assert.ok(bounded.startsWith('HEAD'));
  assert.ok(bounded.endsWith('TAIL'));
  assert.match(bounded, /output truncated/);
  assert.equal(boundOutput('  short\n', 1024), 'short', 'short output is only trimmed');
});

test('bounding never splits a multi-byte character into a replacement mark', () => {
  const bounded = boundOutput('错'.repeat(2000), 512);
  assert.doesNotMatch(bounded, /\uFFFD/);
});

test('a session becomes `$ cmd` user messages and `exit N · output` tool messages, with ids and times', () => {
  const msgs = sessionMessages('t1', [
    ex('make', 2, 'boom', Date.parse('2026-12-01T00:00:00Z'), Date.parse('2026-12-01T00:00:03Z')),
    ex('make', undefined),
  ]);
  assert.deepEqual(
    msgs.map((m) => [m.role, m.content, m.id]),
    [
      ['user', '$ make', 't1:0:cmd'],
      ['tool', 'exit 2 · boom', 't1:0:out'],
      ['user', '$ make', 't1:1:cmd'],
      ['tool', 'exit unknown · ', 't1:1:out'],
    ],
  );
  assert.equal(msgs[0].timestamp, '2026-12-01T00:00:00.000Z');
  assert.equal(msgs[1].timestamp, '2026-12-01T00:00:03.000Z');
});

/** The default `mnemo.capture.terminal.excludePatterns` of package.json, compiled as src/config.ts does. */
function defaultExcludes(): RegExp[] {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default: unknown }> } };
  };
  const patterns = manifest.contributes.configuration.properties['mnemo.capture.terminal.excludePatterns']
    .default as string[];
  return patterns.map((p) => (p.startsWith('(?i)') ? new RegExp(p.slice(4), 'i') : new RegExp(p)));
}

test('a chain is split into its commands outside quotes', () => {
  assert.deepEqual(splitCommandChain('cd src && npm test; make || echo "a && b; c" | tee log'), [
    'cd src',
    'npm test',
    'make',
    'echo "a && b; c"',
    'tee log',
  ]);
  assert.deepEqual(splitCommandChain("git commit -m 'fix; again' && git push"), [
    "git commit -m 'fix; again'",
    'git push',
  ]);
  assert.deepEqual(splitCommandChain('echo a\\;b'), ['echo a\\;b']);
  assert.deepEqual(splitCommandChain('  '), []);
});

test('cd … && a real command is captured; a chain of trivial commands or anything with a secret is not', () => {
  const rx = defaultExcludes();
  assert.equal(
    isExcludedCommand('cd services/api && npm test', rx),
    false,
    'the default exclusion used to drop this whole line',
  );
  assert.equal(isExcludedCommand('npm test', rx), false);
  assert.equal(isExcludedCommand('lsof -i :8080', rx), false);
  assert.equal(isExcludedCommand('ls -la', rx), true);
  assert.equal(isExcludedCommand('cd src && ls', rx), true, 'every command of the chain is trivial');
  assert.equal(
    isExcludedCommand('cd src && mysql --Password=hunter2', rx),
    true,
    'a secret anywhere excludes the line',
  );
  assert.equal(isExcludedCommand('export API_KEY=abc && npm start', rx), true);
  assert.equal(isExcludedCommand('anything', []), false);
});
