import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { holdsRequests, replayMutationLog, vscodeChat } from '../../sidecar/capture/sources/vscodeChat';
import {
  compact,
  VS_CHINESE,
  VS_DECISION,
  VS_JSON_SESSION,
  VS_LOG_SESSION,
  VS_SECRET,
  writeVscodeChat,
} from '../fixtures/capture/vscodeChat';
import { captureHarness, chatLines } from '../support/captureHarness';

const FOLDER = '/home/dev/web';
const h = captureHarness([FOLDER]);
const userDir = join(h.home, '.config', 'Code', 'User');
const fx = writeVscodeChat(userDir, FOLDER);
after(() => h.cleanup());

test('the CLI finds the sessions by workspace.json; the editor names its own storage folder', async () => {
  const files = await vscodeChat.discover(h.env);
  assert.deepEqual(files.map((f) => f.sessionId).sort(), [VS_LOG_SESSION, VS_JSON_SESSION].sort());
  assert.ok(files.every((f) => f.cwd === FOLDER && !f.appendOnly));
  const inEditor = await vscodeChat.discover({ ...h.env, workspaceStorage: fx.storage, folders: [FOLDER] });
  assert.equal(inEditor.length, 2);
});

test('a chat nobody wrote in (the Chat view opened, no request) is not a session: not counted, not asked about', async () => {
  const storage = mkdtempSync(join(tmpdir(), 'mnemo-vs-empty-'));
  try {
    const dir = join(storage, 'chatSessions');
    mkdirSync(dir, { recursive: true });
    const empty = { version: 3, sessionId: 'e1', creationDate: 1, requests: [] };
    writeFileSync(join(dir, 'e1.jsonl'), JSON.stringify({ kind: 0, v: empty }) + '\n');
    writeFileSync(join(dir, 'e2.json'), JSON.stringify({ ...empty, sessionId: 'e2' }));
    const asked = {
      ...empty,
      sessionId: 'f1',
      requests: [{ requestId: 'r1', message: { text: 'Use pnpm here.' }, response: [] }],
    };
    writeFileSync(
      join(dir, 'f1.jsonl'),
      JSON.stringify({ kind: 0, v: { ...empty, sessionId: 'f1' } }) +
        '\n' +
        JSON.stringify({ kind: 2, k: ['requests'], v: asked.requests }) +
        '\n',
    );
    writeFileSync(join(dir, 'junk.json'), 'not json');
    assert.equal(await holdsRequests(join(dir, 'e1.jsonl')), false);
    assert.equal(await holdsRequests(join(dir, 'f1.jsonl')), true, 'a request pushed after the empty state');
    const files = await vscodeChat.discover({ ...h.env, workspaceStorage: storage, folders: [FOLDER] });
    assert.deepEqual(
      files.map((f) => f.sessionId).sort(),
      ['f1', 'junk'],
      'the empty ones left out; a file that cannot be parsed is still listed (its read says why)',
    );
  } finally {
    rmSync(storage, { recursive: true, force: true });
  }
});

test('the mutation log replays into the chat: pushes, sets of a streamed response, a delete; the half line waits', () => {
  const skipped: Record<string, number> = {};
  const state = replayMutationLog(readFileSync(fx.log, 'utf8'), skipped);
  const requests = state?.requests as { requestId: string; modelState?: { value: number } }[];
  assert.deepEqual(
    requests.map((r) => r.requestId),
    ['request_1', 'request_2', 'request_3'],
  );
  assert.equal(requests[0]!.modelState?.value, 1);
  assert.deepEqual(skipped, {}, 'a line still being written is not a bad entry');
});

test("a capture learns the person and Copilot, the terminal command with its exit code, never @mnemo's turns or mnemo_recall", async () => {
  const sent = await h.run(['vscode-chat']);
  const lines = chatLines(sent);
  assert.ok(lines.includes(`user: ${VS_DECISION}`));
  assert.ok(lines.includes(`user: ${VS_CHINESE}`));
  assert.ok(
    lines.includes(
      'GitHub Copilot: I will check the test setup first. Vitest is now the default for new unit tests.',
    ),
    lines.join('\n'),
  );
  assert.ok(
    lines.includes('user: The API base URL for staging is https://staging.api.example.com/v2.'),
    'the older .json session',
  );
  assert.ok(
    !lines.some((l) => l.includes('@mnemo') || l.includes('Jest everywhere')),
    "the participant's turns are the extension's",
  );
  const shell = sent
    .filter((s) => s.source_type === 'terminal')
    .flatMap((s) => s.messages.map((m) => m.content));
  assert.deepEqual(
    shell.filter((c) => c.startsWith('$')),
    ['$ npx vitest run'],
  );
  assert.ok(shell.some((c) => c.startsWith('exit 1 · FAIL') && c.includes(VS_SECRET)));
  assert.deepEqual(await h.run(['vscode-chat']), []);
});

test('a compacted (rewritten) log learns nothing again', async () => {
  const state = replayMutationLog(readFileSync(fx.log, 'utf8'), {});
  compact(fx.log, state);
  assert.deepEqual(await h.run(['vscode-chat']), []);
});

test('a response still streaming (pending) waits while the session is live', async () => {
  const s = replayMutationLog(readFileSync(fx.log, 'utf8'), {})!;
  (s.requests as unknown[]).push({
    requestId: 'request_5',
    timestamp: Date.UTC(2026, 9, 17, 10, 5),
    message: { text: 'Which Node version do we target?' },
    response: [{ value: 'We target Node' }],
    modelState: { value: 0 },
  });
  compact(fx.log, s);
  h.now.ms = Date.UTC(2026, 9, 17, 10, 5, 3); // 3 s after the write: settled, not finished
  assert.deepEqual(await h.run(['vscode-chat']), [], 'the question waits with its pending answer');
  h.now.ms = Date.UTC(2030, 0, 1);
  assert.deepEqual(chatLines(await h.run(['vscode-chat'])), [
    'user: Which Node version do we target?',
    'GitHub Copilot: We target Node',
  ]);
});
