import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { copilotCli } from '../../sidecar/capture/sources/copilotCli';
import { CP_DECISION, CP_SECRET, CP_SESSION, writeCopilotCli } from '../fixtures/capture/copilotCli';
import { captureHarness, chatLines } from '../support/captureHarness';

const CWD = '/home/dev/app';
const h = captureHarness([CWD]);
writeCopilotCli(h.home, CWD);
after(() => h.cleanup());

test('discovery reads the folder from workspace.yaml', async () => {
  const [f] = await copilotCli.discover(h.env);
  assert.equal(f?.sessionId, CP_SESSION);
  assert.equal(f?.cwd, CWD);
});

test('a capture learns the request and the replies, the failing and the passing push; an unknown event is counted', async () => {
  const file = (await copilotCli.discover(h.env))[0]!;
  const r = await copilotCli.read(file, 0, undefined, { settled: true, final: true, maxBytes: 1 << 26 });
  assert.equal(r.skipped['unknown event "experimental.thing"'], 1);
  assert.ok(!('unknown event "session.usage_v3"' in r.skipped), 'session events are known to carry nothing');
  const sent = await h.run(['copilot-cli']);
  assert.deepEqual(chatLines(sent), [
    `user: ${CP_DECISION}`,
    'Copilot CLI: 好的，我先看看现有的分支。',
    'Copilot CLI: release/2026.10 已推送。',
  ]);
  const shell = sent
    .filter((s) => s.source_type === 'terminal')
    .flatMap((s) => s.messages.map((m) => m.content));
  assert.deepEqual(
    shell.filter((c) => c.startsWith('exit')).map((c) => c.slice(0, 7)),
    ['exit 1 ', 'exit 0 '],
  );
  assert.ok(shell.some((c) => c.includes(CP_SECRET)));
  assert.deepEqual(await h.run(['copilot-cli']), []);
});
