import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeSession } from '../../sidecar/pipeline/index';
import { isTerminalSession, parseExecutions } from '../../sidecar/pipeline/terminal';
import { errorLine } from '../../sidecar/shared/terminal';
import type { RawMessage } from '../../sidecar/pipeline/types';
import { parseCommandMessage, parseResultMessage, terminalMessages } from '../../sidecar/shared/terminal';

function run(cmd: string, exit: number, output: string, id: string): RawMessage[] {
  return [
    { role: 'user', content: `$ ${cmd}`, id: `${id}c` },
    { role: 'tool', content: `exit ${exit} · ${output}`, id: `${id}r` },
  ];
}

test('a failing command followed by its fix becomes one troubleshooting memory citing both', async () => {
  const r = await analyzeSession({
    project_id: 'p',
    source_type: 'terminal',
    messages: [
      ...run('npm test', 1, '> jest\nError: Cannot find module "pg"\n    at require', '1'),
      ...run('ls', 0, 'package.json src', '2'),
      ...run('npm install pg@8.11.3', 0, 'added 14 packages', '3'),
      ...run('npm test', 0, 'Tests: 42 passed', '4'),
    ],
  });
  assert.equal(r.candidates.length, 1, JSON.stringify(r.candidates));
  const c = r.candidates[0];
  assert.equal(
    c.text,
    '`npm test` failed (exit 1: Error: Cannot find module "pg"); fixed by `npm install pg@8.11.3`, then `npm test` passed.',
  );
  assert.ok(c.source_ref.includes('msg:3c'), 'the fixing step is cited');
  assert.equal(c.source_type, 'troubleshooting_log');
  assert.equal(c.is_actionable, true);
  assert.ok(c.source_ref.includes('msg:1c') && c.source_ref.includes('msg:4r'));
  assert.match(c.reason, /terminal-fix/);
  assert.ok(r.dropped.some((d) => d.text === '$ ls' && d.reason === 'drop:command-ok-no-lesson'));
});

test('a failure with a long output (kept up to 8 KB) is still a command and its result, and its fix is found', async () => {
  // Longer than one rules piece (500 characters): the session was once read as prose, piece by piece.
  const output = `${Array.from({ length: 300 }, (_, i) => `PASS test/case-${i}.spec.ts (12 ms)`).join('\n')}\nError: connect ECONNREFUSED 127.0.0.1:5432`;
  const r = await analyzeSession({
    project_id: 'p',
    source_type: 'terminal',
    messages: [
      ...run('npm test', 1, output, '1'),
      ...run('docker compose up -d db', 0, 'Container db  Started', '2'),
      ...run('npm test', 0, 'Tests: 300 passed', '3'),
    ],
  });
  assert.deepEqual(
    r.candidates.map((c) => c.reason),
    ['rule:terminal-fix(npm test exit 1 -> exit 0)'],
  );
  assert.match(r.candidates[0]!.text, /ECONNREFUSED 127\.0\.0\.1:5432.*docker compose up -d db/);
  assert.ok(r.dropped.length < 5, `the output is not read as prose: ${r.dropped.length} dropped`);
});

test('a fix is found command by command across chains: cd && the failing script, then the script; a failing step, then a chain ending in it', async () => {
  const r = await analyzeSession({
    project_id: 'p',
    source_type: 'terminal',
    messages: [
      ...run('cd app && ./flash.sh --port 5020', 1, 'Error: port 5020 out of range', '1'),
      ...run('./flash.sh --port 502', 0, 'flashed', '2'),
      ...run('npm run migrate', 1, 'Error: connect ECONNREFUSED 127.0.0.1:5432', '3'),
      ...run('docker compose up -d db && npm run migrate', 0, 'migrated 3', '4'),
      ...run("echo 'a && b' ; git commit -m 'x; y'", 1, 'nothing to commit', '5'),
    ],
  });
  assert.deepEqual(
    r.candidates.map((c) => c.text),
    [
      '`cd app && ./flash.sh --port 5020` failed (exit 1: Error: port 5020 out of range); `./flash.sh --port 502` fixed it.',
      '`npm run migrate` failed (exit 1: Error: connect ECONNREFUSED 127.0.0.1:5432); `docker compose up -d db && npm run migrate` fixed it.',
    ],
  );
  assert.deepEqual(
    r.candidates.map((c) => c.fix),
    ['changed', 'changed'],
  );
  assert.ok(
    r.dropped.some((d) => d.text.startsWith("$ echo 'a && b'") && d.reason === 'drop:command-failed-unfixed'),
  );
});

test('plain command history teaches nothing; an unfixed failure is dropped with its reason', async () => {
  const r = await analyzeSession({
    project_id: 'p',
    source_type: 'terminal',
    messages: [
      ...run('git status', 0, 'clean', '1'),
      ...run('make deploy', 2, 'make: *** [deploy] Error 2', '2'),
    ],
  });
  assert.deepEqual(r.candidates, []);
  assert.deepEqual(
    r.dropped.map((d) => d.reason),
    ['drop:command-ok-no-lesson', 'drop:command-failed-unfixed'],
  );
});

test('a changed command that succeeds is the fix', async () => {
  const r = await analyzeSession({
    project_id: 'p',
    source_type: 'terminal',
    messages: [
      ...run('bash scripts/flash.sh --port 5020', 1, 'Error: connection refused on port 5020', '1'),
      ...run('bash scripts/flash.sh --port 502', 0, 'flashed', '2'),
    ],
  });
  assert.equal(
    r.candidates[0]?.text,
    '`bash scripts/flash.sh --port 5020` failed (exit 1: Error: connection refused on port 5020); `bash scripts/flash.sh --port 502` fixed it.',
  );
});

test('a different program does not count as the fix', async () => {
  const r = await analyzeSession({
    project_id: 'p',
    source_type: 'terminal',
    messages: [
      ...run('cargo build', 101, 'error[E0432]: unresolved import', '1'),
      ...run('git pull', 0, 'Already up to date.', '2'),
    ],
  });
  assert.deepEqual(r.candidates, []);
});

test('secrets in commands are redacted before the terminal stage sees them', async () => {
  const r = await analyzeSession({
    project_id: 'p',
    source_type: 'terminal',
    messages: [
      ...run(
        'curl -H "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789" https://api.github.com/user',
        22,
        'curl: (22) 401 Unauthorized',
        '1',
      ),
      ...run(
        'curl -H "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789" https://api.github.com/user --fail-with-body',
        0,
        '{"login":"x"}',
        '2',
      ),
    ],
  });
  assert.equal(r.candidates.length, 1);
  assert.ok(!r.candidates[0].text.includes('ghp_abc'), r.candidates[0].text);
  assert.match(r.candidates[0].text, /\[REDACTED:/);
});

test('helpers: parsing, detection, the error line', () => {
  const msgs = [
    { id: 'a', role: 'user' as const, content: '$ make', timestamp: '' },
    { id: 'b', role: 'tool' as const, content: 'exit 2 · cc: fatal error: no input files', timestamp: '' },
  ];
  assert.deepEqual(parseExecutions(msgs), [
    {
      command: 'make',
      exitCode: 2,
      output: 'cc: fatal error: no input files',
      commandId: 'a',
      resultId: 'b',
    },
  ]);
  assert.equal(isTerminalSession(msgs), true);
  assert.equal(
    isTerminalSession([{ id: 'a', role: 'user', content: 'we decided to use vim', timestamp: '' }]),
    false,
  );
  assert.equal(errorLine('building\nstep 2\nERROR: disk full\nbye'), 'ERROR: disk full');
  assert.equal(errorLine('all fine\nlast line'), 'last line');
});

test('the terminal message format is written and read by one module (sidecar/shared/terminal.ts)', () => {
  const messages = terminalMessages('t1', [
    {
      command: 'make',
      exit_code: 2,
      output: 'make: *** [all] Error 2',
      started_at: '2026-01-01T00:00:00.000Z',
      ended_at: '2026-01-01T00:00:01.000Z',
    },
    { command: 'make clean', output: '' },
  ]);
  assert.deepEqual(
    messages.map((m) => [m.role, m.content, m.id]),
    [
      ['user', '$ make', 't1:0:cmd'],
      ['tool', 'exit 2 · make: *** [all] Error 2', 't1:0:out'],
      ['user', '$ make clean', 't1:1:cmd'],
      ['tool', 'exit unknown · ', 't1:1:out'],
    ],
  );
  assert.equal(parseCommandMessage(messages[0]!.content), 'make');
  assert.deepEqual(parseResultMessage(messages[1]!.content), {
    exitCode: 2,
    output: 'make: *** [all] Error 2',
  });
  assert.deepEqual(parseResultMessage(messages[3]!.content), { exitCode: undefined, output: '' });
  assert.equal(parseCommandMessage('make'), undefined);
  assert.equal(parseResultMessage('exit code 2'), undefined);
});

test('the fix is found once, in the sidecar: a similar later success, not an unrelated one', async () => {
  const session = (runs: [string, number][]) =>
    analyzeSession({
      project_id: 'p',
      source_type: 'terminal',
      messages: runs.flatMap(([cmd, exit], i) => run(cmd, exit, exit ? 'Error: failed' : 'ok', `${i}`)),
    });
  const fixed = await session([
    ['npm test', 1],
    ['git status', 0],
    ['npm test -- --runInBand', 0],
  ]);
  assert.equal(fixed.candidates.length, 1);
  assert.equal(fixed.candidates[0]!.source_type, 'troubleshooting_log');
  assert.equal(
    (
      await session([
        ['npm test', 0],
        ['npm run build', 0],
      ])
    ).candidates.length,
    0,
  );
  assert.equal(
    (
      await session([
        ['npm test', 0],
        ['cargo build', 1],
      ])
    ).candidates.length,
    0,
  );
});
