/**
 * The purge rule of Chroma's log (sidecar/store/erasure.ts) on a real SQLite file with Chroma 1.0.5's
 * schema: which rows go and, above all, which stay (a replay must end the same).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Database } from 'node-sqlite3-wasm';
import {
  pendingFile,
  purgeChromaLog,
  purgePending,
  readPending,
  recordErasure,
} from '../../sidecar/store/erasure';

const COLLECTION = '93259b68-3004-4568-9a39-8b682a393112';
const DROPPED = '11111111-2222-3333-4444-555555555555';
const topic = (c: string) => `persistent://default/default/${c}`;

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A data folder whose chroma.sqlite3 holds these log rows: [operation, id, document?, collection?]. */
function store(rows: [number, string, string?, string?][]): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'mnemo-erasure-'));
  dirs.push(dataDir);
  mkdirSync(join(dataDir, 'chroma'));
  const db = new Database(join(dataDir, 'chroma', 'chroma.sqlite3'));
  db.exec(`CREATE TABLE collections (id TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE embeddings_queue (seq_id INTEGER PRIMARY KEY, created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
      operation INTEGER NOT NULL, topic TEXT NOT NULL, id TEXT NOT NULL, vector BLOB, encoding TEXT, metadata TEXT);
    CREATE VIRTUAL TABLE embedding_fulltext_search USING fts5(string_value, tokenize='trigram');`);
  db.run('INSERT INTO collections (id, name) VALUES (?, ?)', [COLLECTION, 'mnemo_x_384']);
  for (const [op, id, doc, col] of rows) {
    const meta =
      op === 3 ? '{}' : JSON.stringify(doc ? { 'chroma:document': doc, status: 'active' } : { use_count: 2 });
    db.run(
      'INSERT INTO embeddings_queue (operation, topic, id, vector, encoding, metadata) VALUES (?, ?, ?, ?, ?, ?)',
      [
        op,
        topic(col ?? COLLECTION),
        id,
        op === 3 || !doc ? null : new Uint8Array(16),
        op === 3 ? null : 'FLOAT32',
        meta,
      ],
    );
  }
  db.close();
  return dataDir;
}

function remaining(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'chroma', 'chroma.sqlite3'), { readOnly: true });
  try {
    return db
      .all('SELECT seq_id, operation, id FROM embeddings_queue ORDER BY seq_id')
      .map((r) => `${r.seq_id as number}:${r.operation as number}:${r.id as string}`);
  } finally {
    db.close();
  }
}

test('the rows before an erased id last delete or full upsert go; the kept row and later updates stay', () => {
  const dataDir = store([
    [2, 'deleted', 'the old secret text'], // 1
    [2, 'edited', 'old text of the edit'], // 2
    [1, 'edited'], // 3: a metadata update before the new text
    [2, 'edited', 'new text of the edit'], // 4
    [1, 'edited'], // 5: a metadata update after it: needed by a replay
    [3, 'deleted'], // 6
    [2, 'other', 'a memory nobody erased'], // 7
    [2, 'other', 'its second version'], // 8: not erased, so both stay
    [2, 'failed', 'a memory whose delete never reached Chroma'], // 9
    [2, 'gone', 'a memory of a dropped collection', DROPPED], // 10
  ]);
  const r = purgeChromaLog(join(dataDir, 'chroma'), ['deleted', 'edited', 'failed', 'unknown']);
  assert.deepEqual(remaining(dataDir), [
    '4:2:edited',
    '5:1:edited',
    '6:3:deleted',
    '7:2:other',
    '8:2:other',
    '9:2:failed',
  ]);
  assert.equal(r.rows, 4);
  assert.equal(r.ids, 4);
  const bytes = readFileSync(join(dataDir, 'chroma', 'chroma.sqlite3'));
  for (const gone of ['the old secret text', 'old text of the edit', 'a memory of a dropped collection'])
    assert.ok(!bytes.includes(gone), `${gone} is still in the file`);
  for (const kept of [
    'new text of the edit',
    'a memory nobody erased',
    'its second version',
    'whose delete never',
  ])
    assert.ok(bytes.includes(kept), `${kept} was lost`);
  assert.equal(r.bytesAfter, statSync(join(dataDir, 'chroma', 'chroma.sqlite3')).size);
});

test('compact mode also purges ids whose last row is a delete, and nothing of a re-added id', () => {
  const dataDir = store([
    [2, 'old-delete', 'deleted before the pending file existed'], // 1
    [3, 'old-delete'], // 2
    [2, 'readded', 'first life'], // 3
    [3, 'readded'], // 4
    [2, 'readded', 'second life'], // 5: the same id stored again: its last row is no delete
  ]);
  purgeChromaLog(join(dataDir, 'chroma'), [], { deleted: true });
  assert.deepEqual(remaining(dataDir), ['2:3:old-delete', '3:2:readded', '4:3:readded', '5:2:readded']);
});

test('the pending file holds ids only, survives a torn line, and keeps what was appended during a purge', () => {
  const dataDir = store([
    [2, 'mem_a', 'text a'],
    [3, 'mem_a'],
  ]);
  recordErasure(dataDir, ['mem_a', 'not an id; DROP TABLE x', 'mem_b']);
  assert.equal(statSync(pendingFile(dataDir)).mode & 0o777, 0o600);
  writeFileSync(pendingFile(dataDir), readFileSync(pendingFile(dataDir), 'utf8') + 'mem_to', { flag: 'w' });
  assert.deepEqual(readPending(dataDir).ids, ['mem_a', 'mem_b']);
  const { result } = purgePending(dataDir);
  assert.equal(result?.rows, 1);
  // The torn line stays for the next purge, once it is complete.
  assert.equal(readFileSync(pendingFile(dataDir), 'utf8'), 'mem_to');
});

test('a database in use is never touched: the purge is skipped and the ids stay pending', () => {
  const dataDir = store([[2, 'mem_a', 'text a']]);
  recordErasure(dataDir, ['mem_a']);
  writeFileSync(
    join(dataDir, 'chroma', 'mnemo-server.json'),
    JSON.stringify({ pid: process.ppid, owner_pid: process.ppid }),
  );
  const r = purgePending(dataDir);
  assert.match(r.skipped ?? '', /a Chroma server \(pid \d+\) is running on this data folder/);
  assert.deepEqual(readPending(dataDir).ids, ['mem_a']);
});
