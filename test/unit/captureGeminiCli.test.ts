import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { geminiCli } from '../../sidecar/capture/sources/geminiCli';
import { GM_DECISION, GM_SECRET, GM_SESSION, writeGemini } from '../fixtures/capture/geminiCli';
import { captureHarness, chatLines } from '../support/captureHarness';

const ROOT = '/home/dev/web-app';
const h = captureHarness([ROOT]);
const fx = writeGemini(h.home, ROOT);
after(() => h.cleanup());

test('discovery maps the project folder through projects.json, finds the sub-agent and the legacy session', async () => {
  const files = await geminiCli.discover(h.env);
  assert.equal(files.length, 3);
  assert.ok(files.every((f) => f.cwd === ROOT));
  assert.equal(files.find((f) => f.path === fx.sub)?.parentSessionId, GM_SESSION);
  assert.equal(files.find((f) => f.path === fx.legacy)?.appendOnly, false);
});

test('a reply appended again with its tool call and tokens is one reply; a rewound exchange and a slash command are left out', async () => {
  const file = (await geminiCli.discover(h.env)).find((f) => f.path === fx.session)!;
  const r = await geminiCli.read(file, 0, undefined, { settled: true, final: true, maxBytes: 1 << 26 });
  assert.deepEqual(
    r.messages.map((m) => `${m.role}:${m.id}`),
    ['user:u1', 'assistant:g1', 'tool:run_shell_command-1', 'user:u4', 'assistant:g3'],
  );
  const tool = r.messages.find((m) => m.role === 'tool')!.tool!;
  assert.equal(tool.command, 'pnpm --version');
  assert.equal(tool.exitCode, 0);
  assert.match(tool.output!, /7\.33\.0/);
  assert.equal(
    r.messages.find((m) => m.id === 'g3')?.text,
    'Done: CONTRIBUTING.md now says to use pnpm 8.',
    'thoughts are not the reply',
  );
  assert.equal(r.skipped['unknown message type "telemetry_v2"'], 1);
  assert.equal(r.sessionId, GM_SESSION);
});

test('a capture learns each message once, the sub-agent under its name, the legacy session whole', async () => {
  const sent = await h.run(['gemini-cli']);
  const lines = chatLines(sent);
  assert.equal(lines.filter((l) => l === `user: ${GM_DECISION}`).length, 1);
  assert.ok(lines.includes('Gemini CLI (task): List the CI jobs that install dependencies.'));
  assert.ok(lines.includes('user: The staging deploy runs every night at 02:00 UTC.'));
  assert.ok(!lines.some((l) => l.includes('forget that question')), 'the rewound exchange');
  const shell = sent
    .filter((s) => s.source_type === 'terminal')
    .flatMap((s) => s.messages.map((m) => m.content));
  assert.ok(shell.includes('$ pnpm --version'));
  assert.ok(shell.some((c) => c.startsWith('exit 0 · ') && c.includes(GM_SECRET)));
  assert.deepEqual(await h.run(['gemini-cli']), []);
  appendFileSync(fx.session, ' of it: pin pnpm in package.json packageManager."}]}\n');
  assert.deepEqual(chatLines(await h.run(['gemini-cli'])), [
    'user: half of it: pin pnpm in package.json packageManager.',
  ]);
});
