/**
 * Cursor: its chats live in SQLite, not in files of their own — `<Cursor User>/globalStorage/state.vscdb`,
 * table `cursorDiskKV`: `composerData:<composer id>` (the chat: `fullConversationHeadersOnly`, the order of
 * its messages) and `bubbleId:<composer id>:<bubble id>` (one message: `type` 1 the person, 2 Cursor,
 * `text`, `createdAt`, `toolFormerData` {name, params, result, status}). Which workspace a chat belongs to:
 * the workspace's own `workspaceStorage/<hash>/state.vscdb`, table `ItemTable`, key `composer.composerData`
 * (`allComposers`), and its `workspace.json`. Cursor is closed source; these names are from third-party
 * readers (docs/capture.md marks them unverified).
 *
 * Read safely or not at all: Cursor's database is never opened in place (SQLite would take locks and leave
 * files beside it). While it is being written — a rollback journal, or a write-ahead log with changes not
 * yet folded back, as while Cursor runs — it is not read ("Cursor is writing its store"); otherwise it is
 * copied to a private temporary folder (0700) — and the copy read, then deleted — and a chat whose data
 * changed during the copy waits for the next read.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, lstatSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from 'node-sqlite3-wasm';
import type { Stamped } from '../read';
import type { CapturedMessage, SourceAdapter, SourceEnv, TranscriptFile } from '../types';
import { parseJson, readJsonFile, subfolders } from '../read';
import { arr, exitCodeIn, fileUriPath, obj, str, toolCall, utc, vscodeUserDir } from './common';

const SPEAKER = 'Cursor';
/** The largest Cursor database copied (a bigger one is not read, and the view says so). */
const MAX_DB_BYTES = 512 * 1024 * 1024;
const SHELL_TOOLS = new Set(['run_terminal_cmd', 'run_terminal_command', 'terminal']);

function userDir(env: SourceEnv): string {
  return vscodeUserDir(env, 'Cursor');
}

function globalDb(env: SourceEnv): string {
  return join(userDir(env), 'globalStorage', 'state.vscdb');
}

/** Why a Cursor database cannot be read safely now, or undefined. */
export function busyReason(db: string): string | undefined {
  try {
    const st = lstatSync(db);
    if (!st.isFile()) return 'its store is not a regular file';
    if (st.size > MAX_DB_BYTES)
      return `its store is larger than ${MAX_DB_BYTES / 1024 / 1024} MB (not copied)`;
  } catch {
    return 'its store is not there';
  }
  for (const side of ['-journal', '-wal']) {
    try {
      if (statSync(`${db}${side}`).size > 0)
        return 'Cursor is writing its store; it is read when Cursor is closed';
    } catch {
      // absent: fine
    }
  }
  return undefined;
}

/** A private copy of a database, reused while the original is unchanged, deleted after a short idle time. */
interface Snapshot {
  size: number;
  mtimeMs: number;
  dir: string;
  db: Database;
  timer: NodeJS.Timeout;
}
const snapshots = new Map<string, Snapshot>();
/** How long a copy is kept after its last use. */
const SNAPSHOT_IDLE_MS = 20_000;

function drop(path: string): void {
  const s = snapshots.get(path);
  if (!s) return;
  snapshots.delete(path);
  clearTimeout(s.timer);
  try {
    s.db.close();
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
}
process.once('exit', () => [...snapshots.keys()].forEach(drop));

/** Runs `fn` on a private copy of a database (copied whole, checked unchanged); undefined when it cannot be read safely. */
function withCopy<T>(path: string, fn: (copy: Database) => T): T | undefined {
  if (busyReason(path)) {
    drop(path);
    return undefined;
  }
  try {
    const st = statSync(path);
    let s = snapshots.get(path);
    if (!s || s.size !== st.size || s.mtimeMs !== st.mtimeMs) {
      drop(path);
      const dir = mkdtempSync(join(tmpdir(), 'mnemo-cursor-'));
      const copy = join(dir, 'state.vscdb');
      copyFileSync(path, copy);
      const after = statSync(path);
      if (after.mtimeMs !== st.mtimeMs || after.size !== st.size || busyReason(path)) {
        rmSync(dir, { recursive: true, force: true });
        return undefined; // written during the copy: next time
      }
      const timer = setTimeout(() => drop(path), SNAPSHOT_IDLE_MS);
      timer.unref?.();
      s = {
        size: st.size,
        mtimeMs: st.mtimeMs,
        dir,
        db: new Database(copy, { readOnly: true, fileMustExist: true }),
        timer,
      };
      snapshots.set(path, s);
    }
    s.timer.refresh();
    return fn(s.db);
  } catch {
    drop(path);
    return undefined;
  }
}

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return undefined;
}

async function discover(env: SourceEnv): Promise<TranscriptFile[]> {
  const root = join(userDir(env), 'workspaceStorage');
  const out: TranscriptFile[] = [];
  for (const { path: dir } of await subfolders(root)) {
    const folder = fileUriPath(obj(await readJsonFile(join(dir, 'workspace.json')))?.folder);
    if (!folder) continue;
    const ids =
      withCopy(join(dir, 'state.vscdb'), (d) => {
        const row = d.get(`SELECT value FROM ItemTable WHERE key = 'composer.composerData'`) as {
          value?: unknown;
        } | null;
        return arr(obj(parseJson(text(row?.value) ?? ''))?.allComposers)
          .map((c) => str(obj(c)?.composerId))
          .filter((x): x is string => !!x);
      }) ?? [];
    for (const id of ids)
      out.push({
        source: 'cursor',
        path: `${globalDb(env)}#${id}`,
        sessionId: id,
        appendOnly: false,
        cwd: folder,
      });
  }
  return out;
}

function dbOf(f: TranscriptFile): string {
  return f.path.slice(0, f.path.lastIndexOf('#'));
}

/** A chat's stamp: its composer row (changes whenever the chat does), without reading the messages. */
async function stamp(f: TranscriptFile): Promise<Stamped> {
  const busy = busyReason(dbOf(f));
  if (busy) return { ok: false, reason: busy };
  const row = withCopy(dbOf(f), (d) =>
    text(
      (
        d.get(`SELECT value FROM cursorDiskKV WHERE key = ?`, [`composerData:${f.sessionId}`]) as {
          value?: unknown;
        } | null
      )?.value,
    ),
  );
  if (row === undefined) return { ok: false, reason: 'the chat is not in Cursor’s store' };
  const head = createHash('sha1').update(row).digest('hex');
  const meta = obj(parseJson(row));
  const updated = Number(meta?.lastUpdatedAt ?? meta?.createdAt ?? 0);
  return {
    ok: true,
    stamp: { size: row.length, mtimeMs: Number.isFinite(updated) ? updated : 0, ino: 0, head },
  };
}

function bubbleMessage(
  id: string,
  b: Record<string, unknown>,
  cwd: string | undefined,
): CapturedMessage | undefined {
  const base = {
    timestamp: utc(b.createdAt) ?? utc(obj(b.timingInfo)?.clientStartTime),
    ...(cwd ? { cwd } : {}),
  };
  const tf = obj(b.toolFormerData);
  if (tf) {
    const name = str(tf.name) ?? 'tool';
    const params =
      obj(parseJson(str(tf.params) ?? '')) ?? obj(tf.params) ?? obj(parseJson(str(tf.rawArgs) ?? ''));
    const tool = toolCall(name, params, SHELL_TOOLS.has(name) ? undefined : []);
    const output = str(tf.result) ?? text(tf.result);
    if (output !== undefined) {
      const parsed = obj(parseJson(output));
      tool.output = str(parsed?.output) ?? output;
      const code = typeof parsed?.exitCode === 'number' ? parsed.exitCode : exitCodeIn(tool.output);
      if (tool.command) tool.exitCode = code ?? (str(tf.status) === 'error' ? 1 : 0);
    }
    if (str(tf.status) === 'error') tool.failed = true;
    return {
      id,
      role: 'tool',
      speaker: SPEAKER,
      text: '',
      tool,
      ...base,
      open: str(tf.status) === 'loading',
    };
  }
  const t = (str(b.text) ?? '').trim();
  if (!t) return undefined;
  return b.type === 1
    ? { id, role: 'user', text: t, ...base }
    : { id, role: 'assistant', speaker: SPEAKER, text: t, ...base };
}

const read: SourceAdapter['read'] = async (f, _offset, _state, opts) => {
  const skipped: Record<string, number> = {};
  const rows = withCopy(dbOf(f), (d) => {
    const meta = text(
      (
        d.get(`SELECT value FROM cursorDiskKV WHERE key = ?`, [`composerData:${f.sessionId}`]) as {
          value?: unknown;
        } | null
      )?.value,
    );
    const bubbles = d.all(`SELECT key, value FROM cursorDiskKV WHERE key LIKE ?`, [
      `bubbleId:${f.sessionId}:%`,
    ]) as { key: string; value: unknown }[];
    return { meta, bubbles };
  });
  if (!rows) {
    skipped[busyReason(dbOf(f)) ?? 'Cursor’s store could not be copied'] = 1;
    return { messages: [], skipped };
  }
  const byId = new Map(
    rows.bubbles.map((r) => [r.key.split(':').pop()!, obj(parseJson(text(r.value) ?? ''))]),
  );
  const order = arr(obj(parseJson(rows.meta ?? ''))?.fullConversationHeadersOnly)
    .map((h) => str(obj(h)?.bubbleId))
    .filter((x): x is string => !!x);
  const ids = order.length ? order : [...byId.keys()];
  const messages: CapturedMessage[] = [];
  for (const id of ids) {
    const b = byId.get(id);
    if (!b) continue;
    const m = bubbleMessage(id, b, f.cwd);
    if (m) messages.push(opts.final ? { ...m, open: false } : m);
  }
  return { messages, ...(f.cwd ? { cwd: f.cwd } : {}), skipped };
};

export const cursor: SourceAdapter = {
  id: 'cursor',
  speaker: SPEAKER,
  roots: (env) => [globalDb(env), join(userDir(env), 'workspaceStorage')],
  discover,
  read,
  stamp,
  unavailable: async (f) => busyReason(dbOf(f)),
};
