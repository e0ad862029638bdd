import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { cursor } from '../../sidecar/capture/sources/cursor';
import { CU_COMPOSER, CU_DECISION, CU_SECRET, writeCursor } from '../fixtures/capture/cursor';
import { captureHarness, chatLines } from '../support/captureHarness';

const FOLDER = '/home/dev/logs';
const h = captureHarness([FOLDER]);
const userDir = join(h.home, '.config', 'Cursor', 'User');
const fx = writeCursor(userDir, FOLDER);
after(() => h.cleanup());

const fingerprint = (): string =>
  [fx.globalDb, fx.workspaceDb]
    .map((f) => `${f}:${statSync(f).mtimeMs}:${createHash('sha1').update(readFileSync(f)).digest('hex')}`)
    .concat(readdirSync(dirname(fx.globalDb)), readdirSync(dirname(fx.workspaceDb)))
    .join('|');

test('a Cursor chat is found through its workspace and read from a private copy, its store never touched', async () => {
  const before = fingerprint();
  const files = await cursor.discover(h.env);
  assert.deepEqual(
    files.map((f) => [f.sessionId, f.cwd]),
    [[CU_COMPOSER, FOLDER]],
  );
  const sent = await h.run(['cursor']);
  assert.deepEqual(chatLines(sent), [
    `user: ${CU_DECISION}`,
    'Cursor: 好的，我先看一下当前的日志配置。',
    'Cursor: 已把 retention_days 改为 14，并加上了归档任务。',
  ]);
  const shell = sent
    .filter((s) => s.source_type === 'terminal')
    .flatMap((s) => s.messages.map((m) => m.content));
  assert.equal(shell[0], '$ grep -r retention config/');
  assert.ok(shell[1]!.startsWith('exit 0 · ') && shell[1]!.includes(CU_SECRET));
  assert.deepEqual(await h.run(['cursor']), [], 'learned once');
  assert.equal(fingerprint(), before, 'no byte and no file of Cursor’s changed');
});

test('while Cursor is writing its store (a write-ahead log with changes) nothing is read, and it says so', async () => {
  const wal = `${fx.globalDb}-wal`;
  writeFileSync(wal, Buffer.alloc(4096, 1));
  try {
    const [f] = await cursor.discover(h.env);
    assert.equal(
      await cursor.unavailable!(f!),
      'Cursor is writing its store; it is read when Cursor is closed',
    );
    const o = await h.capture.captureFile(f!, h.scope);
    assert.equal(o.problem, 'Cursor is writing its store; it is read when Cursor is closed');
  } finally {
    rmSync(wal);
  }
});
