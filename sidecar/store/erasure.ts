/**
 * Erasure from Chroma's own files. Chroma 1.0.5 keeps every write in its log (`embeddings_queue` in
 * `chroma.sqlite3`) although its config says `automatically_purge: true`, so a deleted memory's text, or
 * the text an edit replaced, stays in the file (and `chroma vacuum` keeps it). This module keeps the ids
 * of what was erased (never their text) in a pending file, and purges the log with Chroma stopped: for
 * each erased id, the rows before its last delete (operation 3) or full upsert/add (operations 2/0 with
 * a document and a vector) go, then the file is `VACUUM`ed so their pages are rewritten, not just freed.
 *
 * Why that is safe: a kept row replaces everything before it when Chroma replays its log (a delete
 * removes the record, a Mnemo upsert carries the document, the vector and every metadata key), so
 * dropping the rows before it never changes what a replay ends with. Rows of a collection that no longer
 * exists (a dropped re-embed source) can never be replayed and go too.
 *
 * Never while a server runs: the caller holds Chroma's start lock, no server of this data folder may be
 * running (its server file, and on Linux any process with the folder on its command line or the file
 * open), and node-sqlite3-wasm's VFS locks with a directory beside the file, which a native SQLite
 * (Chroma) does not see.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { Database } from 'node-sqlite3-wasm';
import { appendFully } from '../util/append';
import { replaceFile } from '../shared/atomicFile';
import { pidAlive } from '../util/process';

/** The pending-erasure file: one id per line, 0600. */
export function pendingFile(dataDir: string): string {
  return join(dataDir, 'chroma', 'mnemo-erasures.pending');
}

/** Ids are Mnemo's (`mem_…`, episode ids): a line that is anything else is ignored, never used in SQL text. */
const ID = /^[\w.:@-]{1,200}$/;

/**
 * Records ids whose earlier text must leave Chroma's log (a delete, a text edit, a wipe), durably (fsync)
 * and before Chroma is asked to change them, so a crash in between still purges them at the next start.
 */
export function recordErasure(dataDir: string, ids: readonly string[]): void {
  const good = ids.filter((id) => ID.test(id));
  if (good.length === 0) return;
  const file = pendingFile(dataDir);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fd = openSync(file, 'a', 0o600);
  try {
    appendFully(fd, good.join('\n') + '\n', 'the list of erased memories');
  } finally {
    closeSync(fd);
  }
}

/** The pending ids (deduplicated) and the byte length they were read at. */
export function readPending(dataDir: string): { ids: string[]; bytes: number } {
  let buf: Buffer;
  try {
    buf = readFileSync(pendingFile(dataDir));
  } catch {
    return { ids: [], bytes: 0 };
  }
  // Only whole lines: a torn last line (a crash mid-append) is read again once it is complete.
  const end = buf.lastIndexOf(0x0a) + 1;
  const ids = new Set(
    buf
      .subarray(0, end)
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => ID.test(l)),
  );
  return { ids: [...ids], bytes: end };
}

/** Drops the first `bytes` of the pending file (what a purge handled); lines appended meanwhile stay. */
function dropPending(dataDir: string, bytes: number): void {
  const file = pendingFile(dataDir);
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return;
  }
  const rest = buf.subarray(Math.min(bytes, buf.length));
  if (rest.length === 0) {
    rmSync(file, { force: true });
    return;
  }
  replaceFile(file, rest);
}

/**
 * Why Chroma's database may be in use now, or undefined when nothing holds it: a live server in the
 * server file, or (Linux) a process with the folder on its command line or the file open.
 */
export function chromaInUse(dbDir: string): string | undefined {
  try {
    const info = JSON.parse(readFileSync(join(dbDir, 'mnemo-server.json'), 'utf8')) as { pid?: unknown };
    if (typeof info.pid === 'number' && pidAlive(info.pid))
      return `a Chroma server (pid ${info.pid}) is running on this data folder`;
  } catch {
    // no server file
  }
  if (!existsSync('/proc/self/fd')) return undefined;
  const db = join(dbDir, 'chroma.sqlite3');
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(dbDir))
        return `a Chroma server (pid ${name}) is running on this data folder`;
    } catch {
      continue; // exited meanwhile
    }
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue; // another user's process: it cannot open our 0700 folder either
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${name}/fd/${fd}`) === db) return `process ${name} has ${db} open`;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

export interface PurgeResult {
  /** Log rows deleted. */
  rows: number;
  /** Ids whose earlier rows were looked for. */
  ids: number;
  bytesBefore: number;
  bytesAfter: number;
  ms: number;
  /** Why the file could not be rewritten (the deleted rows are gone and zeroed all the same). */
  vacuumError?: string;
}

/** A log row that replaces everything before it for its id: a delete, or an add/upsert with document and vector. */
const REPLACES = `(operation = 3 OR (operation IN (0, 2) AND vector IS NOT NULL AND json_valid(metadata)
  AND json_extract(metadata, '$."chroma:document"') IS NOT NULL))`;

/**
 * Purges Chroma's log of what was erased and rewrites the file. `scope` is the ids to purge, or `deleted`
 * for every id whose last row is a delete (what `mnemo compact` adds, for deletes made before Mnemo kept
 * the pending file). The caller guarantees no server runs (it holds the start lock and checked
 * {@link chromaInUse}).
 */
export function purgeChromaLog(
  dbDir: string,
  ids: readonly string[],
  opts: { deleted?: boolean } = {},
): PurgeResult {
  const started = Date.now();
  const file = join(dbDir, 'chroma.sqlite3');
  const bytesBefore = existsSync(file) ? statSync(file).size : 0;
  if (!bytesBefore) return { rows: 0, ids: 0, bytesBefore, bytesAfter: 0, ms: 0 };
  const vfsLock = `${file}.lock`;
  // The VFS's lock directory left by a purge that was killed: stale, since the caller holds the start lock.
  rmSync(vfsLock, { recursive: true, force: true });
  const db = new Database(file, { fileMustExist: true });
  let rows = 0;
  let erased = 0;
  let vacuumError: string | undefined;
  try {
    // Exclusive: no shared memory is needed (the WebAssembly VFS has none) and no one else may read meanwhile.
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('PRAGMA secure_delete = ON');
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec('CREATE TEMP TABLE mnemo_erase (id TEXT PRIMARY KEY) WITHOUT ROWID');
      const insert = db.prepare('INSERT OR IGNORE INTO mnemo_erase (id) VALUES (?)');
      try {
        for (const id of ids) insert.run([id]);
      } finally {
        insert.finalize();
      }
      if (opts.deleted)
        db.exec(`INSERT OR IGNORE INTO mnemo_erase (id)
          SELECT q.id FROM embeddings_queue q
           WHERE q.operation = 3 AND q.seq_id = (SELECT MAX(l.seq_id) FROM embeddings_queue l WHERE l.topic = q.topic AND l.id = q.id)`);
      erased = (db.get('SELECT count(*) AS n FROM mnemo_erase')?.n as number | undefined) ?? 0;
      db.exec(`CREATE TEMP TABLE mnemo_keep AS
        SELECT topic, id, MAX(seq_id) AS seq FROM embeddings_queue
         WHERE id IN (SELECT id FROM mnemo_erase) AND ${REPLACES}
         GROUP BY topic, id`);
      rows += db.run(`DELETE FROM embeddings_queue WHERE seq_id IN (
        SELECT q.seq_id FROM embeddings_queue q JOIN mnemo_keep k ON k.topic = q.topic AND k.id = q.id
         WHERE q.seq_id < k.seq)`).changes;
      // Rows of collections that no longer exist (topic persistent://<tenant>/<database>/<collection id>).
      // Only topics of that exact shape, and only while collections are listed at all.
      rows += db.run(`DELETE FROM embeddings_queue
        WHERE topic GLOB 'persistent://*/*/*' AND EXISTS (SELECT 1 FROM collections)
          AND length(substr(topic, length(rtrim(topic, replace(topic, '/', ''))) + 1)) = 36
          AND substr(topic, length(rtrim(topic, replace(topic, '/', ''))) + 1) NOT IN (SELECT id FROM collections)`).changes;
      // Chroma's own full-text index of documents: merged, so deleted documents' entries leave its pages.
      const fts = db.get(`SELECT 1 AS x FROM sqlite_master WHERE name = 'embedding_fulltext_search'`);
      if (fts) db.exec(`INSERT INTO embedding_fulltext_search(embedding_fulltext_search) VALUES('optimize')`);
      db.exec('DROP TABLE mnemo_keep');
      db.exec('DROP TABLE mnemo_erase');
      db.exec('COMMIT');
    } catch (e) {
      db.exec('ROLLBACK');
      throw e;
    }
    // The rows deleted above are zeroed already (secure_delete); VACUUM also rewrites the pages Chroma's
    // own purges freed without zeroing. It needs the file's size in memory (the WebAssembly build keeps
    // temporary data there, at most 2 GB): a failure leaves a consistent file and is reported.
    try {
      db.exec('VACUUM');
    } catch (e) {
      vacuumError = e instanceof Error ? e.message : String(e);
    }
  } finally {
    db.close();
    rmSync(vfsLock, { recursive: true, force: true });
  }
  return {
    rows,
    ids: erased,
    bytesBefore,
    bytesAfter: statSync(file).size,
    ms: Date.now() - started,
    ...(vacuumError ? { vacuumError } : {}),
  };
}

/**
 * The purge of the pending ids, for a caller holding the start lock with no server running: returns what
 * it did, or a sentence saying why it was skipped. The pending file keeps its ids until a purge succeeds.
 */
export function purgePending(
  dataDir: string,
  opts: { deleted?: boolean } = {},
): { result?: PurgeResult; skipped?: string } {
  const dbDir = join(dataDir, 'chroma');
  const pending = readPending(dataDir);
  if (pending.ids.length === 0 && !opts.deleted) return {};
  const busy = chromaInUse(dbDir);
  if (busy) return { skipped: `${busy}, so its log was not compacted` };
  const result = purgeChromaLog(dbDir, pending.ids, opts);
  dropPending(dataDir, pending.bytes);
  return { result };
}
