import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { codex } from '../../sidecar/capture/sources/codex';
import { CX_DECISION, CX_FORK, CX_SECRET, CX_SUB, CX_THREAD, writeCodex } from '../fixtures/capture/codex';
import { captureHarness, chatLines } from '../support/captureHarness';

const CWD = '/srv/team/api';
const h = captureHarness([CWD]);
const fx = writeCodex(h.home, CWD);
after(() => h.cleanup());

test('discovery finds the dated rollouts and the archived one, each by its thread id', async () => {
  const files = await codex.discover(h.env);
  assert.deepEqual(
    files.map((f) => f.sessionId).sort(),
    [CX_THREAD, CX_FORK, CX_SUB, '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a09'].sort(),
  );
  assert.equal(await codex.cwdOf!(files.find((f) => f.sessionId === CX_THREAD)!, h.env), CWD);
});

test("a read keeps the person's words, leaves Codex's injected context and the event mirrors out, pairs calls by call_id", async () => {
  const file = (await codex.discover(h.env)).find((f) => f.sessionId === CX_THREAD)!;
  const r = await codex.read(file, 0, undefined, { settled: true, final: true, maxBytes: 1 << 26 });
  const users = r.messages.filter((m) => m.role === 'user').map((m) => m.text);
  assert.deepEqual(
    users,
    [CX_DECISION],
    "the environment context is not the person's words; event_msg is not read twice",
  );
  const calls = r.messages.filter((m) => m.role === 'tool').map((m) => m.tool!);
  assert.deepEqual(
    calls.map((c) => [c.command ?? c.name, c.exitCode]),
    [
      ['sqitch deploy db:pg://localhost/api', 2],
      ['sqitch deploy db:pg://localhost/api --verify', 0],
      ['mcp__mnemo__recall', undefined],
    ],
  );
  assert.match(calls[0]!.output!, /auth failed/);
  assert.equal(r.skipped['unknown record type "world_state_v9"'], 1);
  assert.equal(r.cwd, CWD);
});

test('the fork repeats the history: only its new turns are learned; the sub-agent speaks as Codex; the archived .zst is counted, not read', async () => {
  const sent = await h.run(['codex']);
  const lines = chatLines(sent);
  assert.equal(lines.filter((l) => l === `user: ${CX_DECISION}`).length, 1, lines.join('\n'));
  assert.ok(lines.includes('user: Also add a rollback script for the orders change.'));
  assert.ok(lines.includes('Codex (task): Review the orders migration for missing indexes.'));
  assert.ok(lines.includes('Codex (sub-agent): The orders table needs an index on customer_id.'));
  assert.ok(!lines.some((l) => l.includes('Flyway')), "the recall result is Mnemo's own");
  const shell = sent
    .filter((s) => s.source_type === 'terminal')
    .flatMap((s) => s.messages.map((m) => m.content));
  assert.deepEqual(
    shell.filter((c) => c.startsWith('$')),
    ['$ sqitch deploy db:pg://localhost/api', '$ sqitch deploy db:pg://localhost/api --verify'],
  );
  assert.ok(shell.some((c) => c.startsWith('exit 2 · ') && c.includes(CX_SECRET)));
  const { files, other } = await h.capture.discover(h.env, ['codex'], h.scope);
  assert.ok(
    !files.some((f) => f.path.endsWith('.zst')),
    'its folder cannot be known without decompressing it',
  );
  assert.equal(other.get('codex'), 1);
  const zst = (await codex.discover(h.env)).find((f) => f.path.endsWith('.zst'))!;
  const r = await codex.read(zst, 0, undefined, { settled: true, final: true, maxBytes: 1 << 20 });
  assert.deepEqual(r.skipped, { 'a zstd-compressed archived rollout (not read)': 1 });
  assert.deepEqual(await h.run(['codex']), []);
});

test('the partly written last line is learned once it is whole', async () => {
  appendFileSync(fx.session, ' of the plan: squash the two migrations before the release."}]}}\n');
  assert.deepEqual(chatLines(await h.run(['codex'])), [
    'user: half of the plan: squash the two migrations before the release.',
  ]);
});
