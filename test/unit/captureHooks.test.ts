import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { claimRequest, hookRequest, recordRequest } from '../../sidecar/capture/cli';
import { hookCommand, hookFile, renderHooks, type HookLaunch } from '../../sidecar/shared/captureHooks';

const launch: HookLaunch = {
  command: '/opt/Code/code',
  args: ['/ext/dist/cli.js'],
  options: ['--data-dir', '/home/a/.config/Code/User/globalStorage/mnemo.mnemo'],
  env: { ELECTRON_RUN_AS_NODE: '1' },
};
const dir = mkdtempSync(join(tmpdir(), 'mnemo-hooks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the hook command starts this CLI through a shell, quoting what needs it', () => {
  assert.equal(
    hookCommand({ ...launch, command: '/opt/My Code/code' }, 'claude-code'),
    "ELECTRON_RUN_AS_NODE=1 '/opt/My Code/code' /ext/dist/cli.js capture --hook claude-code --data-dir /home/a/.config/Code/User/globalStorage/mnemo.mnemo",
  );
  assert.equal(hookFile('codex', { home: '/h', env: { CODEX_HOME: '/c' } }), '/c/config.toml');
});

test("Claude Code: the user's own hooks and settings stay; applying twice changes nothing; removing leaves only theirs", () => {
  const before = JSON.stringify({
    model: 'opus',
    hooks: {
      SessionEnd: [{ matcher: '', hooks: [{ type: 'command', command: 'notify-send bye' }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [] }],
    },
  });
  const after1 = renderHooks('claude-code', before, launch, 'settings.json')!;
  const o = JSON.parse(after1);
  assert.equal(o.model, 'opus');
  assert.equal(o.hooks.SessionEnd.length, 2);
  assert.equal(o.hooks.PreCompact.length, 1);
  assert.match(o.hooks.SessionEnd[1].hooks[0].command, /capture --hook claude-code/);
  assert.equal(renderHooks('claude-code', after1, launch, 'settings.json'), after1, 'idempotent');
  const removed = JSON.parse(renderHooks('claude-code', after1, undefined, 'settings.json')!);
  assert.deepEqual(removed, JSON.parse(before));
  assert.throws(
    () => renderHooks('claude-code', '{ not json', launch, 'settings.json'),
    /is not valid JSON .*Mnemo did not change it/,
  );
});

test("Gemini CLI: a SessionEnd hook with a name; Copilot CLI: a hooks file of Mnemo's own", () => {
  const g = JSON.parse(renderHooks('gemini-cli', '{"general":{"vimMode":true}}', launch, 'settings.json')!);
  assert.equal(g.general.vimMode, true);
  assert.equal(g.hooks.SessionEnd[0].hooks[0].name, 'mnemo-capture');
  const c = JSON.parse(renderHooks('copilot-cli', undefined, launch, 'mnemo-capture.json')!);
  assert.equal(c.version, 1);
  assert.match(c.hooks.sessionEnd[0].bash, /capture --hook copilot-cli/);
  assert.equal(renderHooks('copilot-cli', JSON.stringify(c), undefined, 'x'), undefined, 'removed whole');
});

test("Codex: notify goes before the first table; someone else's notify is never replaced", () => {
  const toml = 'model = "gpt-5"\n\n[mcp_servers.x]\ncommand = "x"\n';
  const out = renderHooks('codex', toml, launch, 'config.toml')!;
  const lines = out.split('\n');
  assert.ok(lines.findIndex((l) => l.startsWith('notify = ')) < lines.indexOf('[mcp_servers.x]'));
  assert.match(
    out,
    /notify = \["env", "ELECTRON_RUN_AS_NODE=1", "\/opt\/Code\/code", "\/ext\/dist\/cli.js", "capture", "--hook", "codex"/,
  );
  assert.equal(renderHooks('codex', out, launch, 'config.toml'), out, 'idempotent');
  assert.equal(renderHooks('codex', out, undefined, 'config.toml'), toml, 'undo restores the rest');
  assert.throws(
    () => renderHooks('codex', 'notify = ["terminal-notifier"]\n', launch, 'config.toml'),
    /Codex already runs a notify program/,
  );
  assert.equal(
    renderHooks('codex', 'notify = ["terminal-notifier"]\n', undefined, 'x'),
    'notify = ["terminal-notifier"]\n',
  );
});

test("a hook's JSON becomes a request: the transcript, or the thread (Codex), or the folder (Copilot CLI)", () => {
  const at = '2026-10-20T10:00:00.000Z';
  assert.deepEqual(
    hookRequest(
      'claude-code',
      JSON.stringify({ transcript_path: '/t/s.jsonl', cwd: '/w', hook_event_name: 'SessionEnd' }),
      at,
    ),
    { agent: 'claude-code', transcript: '/t/s.jsonl', cwd: '/w', final: true, at },
  );
  assert.equal(
    hookRequest(
      'claude-code',
      JSON.stringify({ transcript_path: '/t/s.jsonl', hook_event_name: 'PreCompact' }),
      at,
    ).final,
    false,
  );
  assert.deepEqual(
    hookRequest('codex', JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 'th1', cwd: '/w' }), at),
    {
      agent: 'codex',
      thread: 'th1',
      cwd: '/w',
      final: false,
      at,
    },
  );
  assert.equal(hookRequest('copilot-cli', JSON.stringify({ cwd: '/w', reason: 'complete' }), at).final, true);
  assert.throws(() => hookRequest('gemini-cli', 'not json', at), /did not pass JSON/);
  assert.throws(() => hookRequest('gemini-cli', '{}', at), /named no transcript and no folder/);
});

test('requests are claimed once; one claimed by a process that died is taken over', () => {
  const at = '2026-10-20T10:00:00.000Z';
  recordRequest(dir, { agent: 'gemini-cli', cwd: '/w', final: true, at });
  const first = claimRequest(dir)!;
  assert.equal(first.request.agent, 'gemini-cli');
  assert.equal(claimRequest(dir), undefined, 'claimed already');
  // The claimer died: its claim carries a pid that is no longer alive.
  renameSync(first.file, first.file.replace(`.${process.pid}.claimed`, '.999999999.claimed'));
  const again = claimRequest(dir)!;
  assert.equal(again.request.cwd, '/w');
  rmSync(again.file);
  assert.deepEqual(readdirSync(join(dir, 'capture', 'requests')), []);
});
