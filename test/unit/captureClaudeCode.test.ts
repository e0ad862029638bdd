import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { claudeCode } from '../../sidecar/capture/sources/claudeCode';
import {
  CC_DECISION,
  CC_RESUMED,
  CC_RULE,
  CC_SECRET,
  CC_SESSION,
  writeClaudeCode,
} from '../fixtures/capture/claudeCode';
import { captureHarness, chatLines } from '../support/captureHarness';

const CWD = '/home/dev/shop';
const h = captureHarness([CWD]);
const fx = writeClaudeCode(h.home, CWD);
after(() => h.cleanup());

test('discovery finds the sessions, the resumed one and the sub-agent under the project folder', async () => {
  const files = await claudeCode.discover(h.env);
  assert.deepEqual(files.map((f) => f.sessionId).sort(), [CC_SESSION, CC_RESUMED, 'agent-a3f9c1'].sort());
  assert.equal(files.find((f) => f.sessionId === 'agent-a3f9c1')?.parentSessionId, CC_SESSION);
  assert.equal(await claudeCode.cwdOf!(files[0]!, h.env), CWD);
});

test('a read merges the streamed reply, pairs tool calls with results, skips junk and an unknown type, leaves the half line', async () => {
  const [file] = (await claudeCode.discover(h.env)).filter((f) => f.sessionId === CC_SESSION);
  const r = await claudeCode.read(file!, 0, undefined, { settled: true, final: true, maxBytes: 1 << 26 });
  const byId = new Map(r.messages.map((m) => [m.id, m]));
  assert.equal(byId.get('u1')?.text, CC_DECISION);
  assert.equal(byId.get('msg_01A')?.role, 'assistant');
  assert.deepEqual(
    byId.get('msg_01A')?.parts?.map((p) => p.key),
    ['a1'],
    'the reply text is one message, the tool call its own',
  );
  const t1 = byId.get('toolu_1')?.tool;
  assert.equal(t1?.command, 'npm test -- payments');
  assert.equal(t1?.exitCode, 1);
  assert.match(t1?.output ?? '', /ETIMEDOUT/);
  assert.equal(byId.get('toolu_2')?.tool?.exitCode, 0);
  assert.equal(r.skipped['binary data'], 1, 'the junk line is counted');
  assert.equal(r.skipped['unknown record type "x-telemetry-checkpoint"'], 1);
  assert.ok(!byId.has('u9'), 'the line still being written is not read');
  const size = statSync(file!.path).size;
  assert.ok(r.endOffset! < size && r.endOffset! > 0, 'the cursor stops before the partial line');
});

test("a capture sends the conversation and the commands, without Mnemo's own text; a second run sends nothing", async () => {
  const sent = await h.run(['claude-code']);
  const chat = sent.filter((s) => s.source_type === 'chat');
  const shell = sent.filter((s) => s.source_type === 'terminal');
  const lines = chatLines(sent);
  assert.ok(lines.includes(`user: ${CC_DECISION}`), lines.join('\n'));
  assert.ok(
    lines.includes(`user: ${CC_RULE}`),
    'the hook-injected recall block is cut away, the prompt stays',
  );
  assert.ok(
    !lines.some((l) => l.includes('mem_0123456789abcdef') || l.includes('Payment tests need the VPN')),
  );
  assert.ok(
    lines.some((l) => l.startsWith('Claude Code: 好的')),
    'the agent speaks under its name',
  );
  assert.ok(lines.includes('Claude Code (task): Find every place the payment timeout is configured.'));
  assert.ok(
    lines.some((l) => l.startsWith('user: Please also document')),
    'the resumed session adds its new turn',
  );
  assert.equal(
    lines.filter((l) => l.includes(CC_DECISION)).length,
    1,
    'replayed lines of the resumed session are not sent again',
  );
  for (const s of chat) assert.ok(s.source_ref!.includes('agent:claude-code'));
  const commands = shell.flatMap((s) => s.messages.map((m) => m.content));
  assert.deepEqual(
    commands.filter((c) => c.startsWith('$ ')),
    ['$ npm test -- payments', '$ npm test -- payments --runInBand'],
  );
  assert.ok(
    commands.some((c) => c.startsWith('exit 1 · FAIL') && c.includes(CC_SECRET)),
    "redaction is the queue's job",
  );
  assert.ok(commands.some((c) => c.startsWith('exit 0 · Tests: 42 passed')));
  assert.deepEqual(await h.run(['claude-code']), [], 'nothing is learned twice');
});

test('the rest of a partly written line is learned once it is whole', async () => {
  appendFileSync(
    fx.session,
    ' of a thought: use port 5433 for the test database."},"timestamp":"2026-10-14T09:02:00.000Z","cwd":"/home/dev/shop","sessionId":"x"}\n',
  );
  const sent = await h.run(['claude-code']);
  assert.deepEqual(chatLines(sent), ['user: half of a thought: use port 5433 for the test database.']);
  assert.deepEqual(await h.run(['claude-code']), []);
});

test('a transcript rewritten from its start (same lines, new file) learns nothing again', async () => {
  const text = readFileSync(fx.resumed);
  rmSync(fx.resumed);
  writeFileSync(fx.resumed, text);
  assert.deepEqual(await h.run(['claude-code']), []);
});

test("while the file is being written the last reply and the person's last words wait; a finished session learns them", async () => {
  const now = Date.now();
  appendFileSync(
    fx.resumed,
    [
      JSON.stringify({
        type: 'user',
        uuid: 'r3',
        cwd: CWD,
        timestamp: '2026-10-14T09:03:00Z',
        message: { role: 'user', content: 'Which Node version does CI use?' },
      }),
      '',
    ].join('\n'),
  );
  utimesSync(fx.resumed, now / 1000, now / 1000);
  h.now.ms = now + 200; // just written
  assert.deepEqual(await h.run(['claude-code']), [], 'the question waits for its answer');
  appendFileSync(
    fx.resumed,
    JSON.stringify({
      type: 'assistant',
      uuid: 'r4',
      cwd: CWD,
      timestamp: '2026-10-14T09:03:05Z',
      message: { id: 'msg_R2', role: 'assistant', content: [{ type: 'text', text: 'CI uses Node 20.' }] },
    }) + '\n',
  );
  utimesSync(fx.resumed, now / 1000, now / 1000);
  assert.deepEqual(await h.run(['claude-code']), [], 'a reply may still be streaming');
  h.now.ms = now + 2_000; // settled
  assert.deepEqual(chatLines(await h.run(['claude-code'])), [
    'user: Which Node version does CI use?',
    'Claude Code: CI uses Node 20.',
  ]);
  // A later fragment of the same reply is learned on its own, never the whole reply again.
  appendFileSync(
    fx.resumed,
    JSON.stringify({
      type: 'assistant',
      uuid: 'r5',
      cwd: CWD,
      timestamp: '2026-10-14T09:03:09Z',
      message: {
        id: 'msg_R2',
        role: 'assistant',
        content: [{ type: 'text', text: 'It is pinned in .nvmrc.' }],
      },
    }) + '\n',
  );
  h.now.ms = Date.UTC(2030, 0, 1);
  assert.deepEqual(chatLines(await h.run(['claude-code'])), ['Claude Code: It is pinned in .nvmrc.']);
});
