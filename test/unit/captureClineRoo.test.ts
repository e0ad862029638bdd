import assert from 'node:assert/strict';
import { utimesSync, writeFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { cline } from '../../sidecar/capture/sources/cline';
import { rooCode } from '../../sidecar/capture/sources/rooCode';
import {
  CL_DECISION,
  CL_SECRET,
  CL_TASK,
  ROO_SUBTASK,
  uiMessages,
  writeCline,
  writeRoo,
} from '../fixtures/capture/clineTasks';
import { captureHarness, chatLines } from '../support/captureHarness';

const CWD = '/home/dev/svc';
const h = captureHarness([CWD]);
const cl = writeCline(h.home, CWD);
writeRoo(h.home, CWD);
after(() => h.cleanup());

test("Cline's tasks take their folder from the task history; Roo's from each history item, with the sub-task's parent", async () => {
  const tasks = await cline.discover(h.env);
  assert.deepEqual(
    tasks.map((t) => [t.sessionId, t.cwd]),
    [[CL_TASK, CWD]],
  );
  const roos = await rooCode.discover(h.env);
  assert.equal(roos.length, 2);
  assert.ok(roos.every((t) => t.cwd === CWD));
  assert.ok(roos.find((t) => t.sessionId === ROO_SUBTASK)?.parentSessionId);
});

test("a task becomes the person's task, the agent's replies, the command with its output; Mnemo's recall call is left out", async () => {
  const sent = await h.run(['cline']);
  assert.deepEqual(chatLines(sent), [
    `user: ${CL_DECISION}`,
    'Cline: 好的，我先看一下现在的 logger 配置。',
    'tool: readFile src/logger.ts',
    'Cline: logger 已改为输出 JSON，字段名统一为 snake_case。',
  ]);
  const shell = sent
    .filter((s) => s.source_type === 'terminal')
    .flatMap((s) => s.messages.map((m) => m.content));
  assert.equal(shell[0], '$ npm run lint');
  assert.ok(shell[1]!.startsWith('exit unknown · ') && shell[1]!.includes(CL_SECRET));
  assert.deepEqual(await h.run(['cline']), []);
});

test('the task file rewritten whole (a reply streaming in place) learns the reply once it is no longer partial', async () => {
  const msgs = uiMessages() as { ts: number; text: string; partial?: boolean }[];
  msgs.push({
    ...msgs.at(-1)!,
    ts: msgs.at(-1)!.ts + 5000,
    text: 'Also added a log rotation note to the README.',
    partial: true,
  });
  writeFileSync(cl.file, JSON.stringify(msgs));
  const now = Date.now();
  utimesSync(cl.file, now / 1000, now / 1000);
  h.now.ms = now + 2000;
  assert.deepEqual(await h.run(['cline']), [], 'partial: still streaming');
  msgs.at(-1)!.partial = false;
  writeFileSync(cl.file, JSON.stringify(msgs));
  utimesSync(cl.file, now / 1000, now / 1000);
  assert.deepEqual(chatLines(await h.run(['cline'])), [
    'Cline: Also added a log rotation note to the README.',
  ]);
  h.now.ms = Date.UTC(2030, 0, 1);
});

test("Roo's sub-task: its first message is the parent agent's, not the person's", async () => {
  const sent = await h.run(['roo-code']);
  const lines = chatLines(sent);
  assert.ok(lines.includes('Roo Code (task): Write a unit test for the JSON logger.'), lines.join('\n'));
  assert.ok(lines.includes(`user: ${CL_DECISION}`));
});
