/**
 * The capture of agents' transcripts, the same for every agent (one adapter each in sources/): find the
 * sessions of the folders captured for, read each file from its durable cursor, keep what was not learned
 * before (by message id: a resumed, forked or rewritten transcript repeats messages), leave Mnemo's own text
 * out, and send the rest through the same path as every capture — redacted and queued durably
 * (ingest/capture.ts), then the pipeline — into the project of the session's working folder.
 *
 * A read stops before what is still being written: a last line without its newline, a reply still
 * streaming (the file changed less than {@link SETTLE_MS} ago), a tool call without its result, and the
 * person's last words before the agent answered — unless the session ended (a hook said so, or the file
 * has been quiet for {@link FINAL_QUIET_MS}). One process at a time reads a source (a lock file per source
 * in the data folder); a bad file or record is skipped with one line and a count, the others go on.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CaptureResult, SessionInput } from '../protocol';
import type { CaptureSourceId } from '../shared/agentSources';
import { withLock } from '../util/fileLock';
import { CursorStore, type FileCursor } from './cursors';
import { readPrefs, pausedFolders, type CapturePrefs } from './prefs';
import { PASS_BYTES, stampOf, type FileStamp } from './read';
import { place, type CaptureScope } from './scope';
import { buildSessions } from './session';
import { ADAPTERS } from './sources/index';
import type { CapturedMessage, SourceAdapter, SourceEnv, TranscriptFile } from './types';

/** A file unchanged this long is read as whole records: a streamed reply is done. */
export const SETTLE_MS = 1_500;
/** A file unchanged this long is a finished session: nothing of it is held back any more. */
export const FINAL_QUIET_MS = 10 * 60_000;
/**
 * A file written this recently holds a conversation going on: the watcher reads it first, and what it gives
 * is learned before older captures already queued (a backfill, last words released by FINAL_QUIET_MS).
 */
export const LIVE_MS = 60_000;
/** How long a capture waits for another process reading the same agent's transcripts. */
const LOCK_WAIT_MS = 120_000;
/** At most this many problem lines are kept per source (the counts are complete). */
const MAX_PROBLEMS = 20;

export interface CaptureDeps {
  dataDir: string;
  /** Redacts and queues a session durably (ingest/capture.ts); resolves once it is on disk. */
  enqueue(session: SessionInput, opts?: { live?: boolean }): Promise<CaptureResult>;
  clock: () => Date;
  log: { info(l: string): void; warn(l: string): void };
  adapters?: SourceAdapter[];
}

/** What one file gave. */
export interface FileOutcome {
  source: CaptureSourceId;
  /** Messages learned (queued) now. */
  messages: number;
  /** Messages held back (still being written). */
  held: number;
  injected: number;
  /** Records skipped, by reason. */
  skipped: Record<string, number>;
  /** Why the whole file was not read (gone, a link, too large, out of scope…). */
  problem?: string;
  /** The file belongs to a folder outside the scope (not counted as a problem). */
  outOfScope?: boolean;
  queueIds: string[];
  projectId?: string;
}

export interface SourceTotals {
  id: CaptureSourceId;
  sessions: number;
  messages: number;
  skipped: number;
  injected: number;
  problems: string[];
  queueIds: string[];
  projects: string[];
}

export function emptyTotals(id: CaptureSourceId): SourceTotals {
  return { id, sessions: 0, messages: 0, skipped: 0, injected: 0, problems: [], queueIds: [], projects: [] };
}

export function addOutcome(t: SourceTotals, file: string, o: FileOutcome): void {
  if (o.messages > 0) t.sessions++;
  t.messages += o.messages;
  t.injected += o.injected;
  t.queueIds.push(...o.queueIds);
  if (o.projectId && o.messages > 0 && !t.projects.includes(o.projectId)) t.projects.push(o.projectId);
  const skipped = Object.entries(o.skipped);
  for (const [, n] of skipped) t.skipped += n;
  const note = (line: string) => {
    if (t.problems.length < MAX_PROBLEMS) t.problems.push(line);
  };
  if (o.problem && !o.outOfScope) {
    t.skipped++;
    note(`${file}: skipped, ${o.problem}.`);
  }
  for (const [why, n] of skipped) note(`${file}: ${n} record${n === 1 ? '' : 's'} skipped (${why}).`);
}

/** The environment adapters look in: this process's home and variables, plus what the editor knows exactly. */
export function sourceEnv(
  folders: string[],
  editor: { user_dir?: string; workspace_storage?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): SourceEnv {
  return {
    home: env.HOME || homedir(),
    env,
    platform: process.platform,
    folders: folders.map((f) => resolve(f)),
    ...(editor.user_dir ? { vscodeUserDir: editor.user_dir } : {}),
    ...(editor.workspace_storage ? { workspaceStorage: editor.workspace_storage } : {}),
  };
}

/** The scope of a capture for these folders, with the exclusions and pauses of the saved preferences. */
export function scopeFor(folders: string[], prefs: CapturePrefs, anyFolder = false): CaptureScope {
  return {
    folders: folders.map((f) => resolve(f)),
    anyFolder,
    excludeGlobs: prefs.excludeGlobs,
    pausedFolders: pausedFolders(prefs),
  };
}

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.head === b.head;
}

export class TranscriptCapture {
  readonly cursors: CursorStore;
  readonly adapters: SourceAdapter[];
  /** Working folders of transcripts, by path (a session's folder never changes). */
  private readonly cwdCache = new Map<string, string | null>();

  constructor(private readonly deps: CaptureDeps) {
    this.cursors = new CursorStore(join(deps.dataDir, 'capture'));
    this.adapters = [...(deps.adapters ?? ADAPTERS)];
  }

  adapter(id: CaptureSourceId): SourceAdapter {
    const a = this.adapters.find((x) => x.id === id);
    if (!a) throw new Error(`No adapter for ${id}.`);
    return a;
  }

  prefs(): CapturePrefs {
    return readPrefs(this.deps.dataDir);
  }

  /** A transcript's working folder: discovery's, the cursor's, or read from its metadata (cached). */
  async cwdOf(file: TranscriptFile, env: SourceEnv): Promise<string | undefined> {
    if (file.cwd) return file.cwd;
    const cached = this.cwdCache.get(file.path);
    if (cached !== undefined) return cached ?? undefined;
    const fromCursor = this.cursors.get(file.source, file.path)?.cwd;
    const cwd = fromCursor ?? (await this.adapter(file.source).cwdOf?.(file, env));
    if (cwd) this.cwdCache.set(file.path, cwd);
    return cwd;
  }

  /** The transcripts of these sources, split into those in scope and how many belong to other folders. */
  async discover(
    env: SourceEnv,
    sources: readonly CaptureSourceId[],
    scope: CaptureScope,
  ): Promise<{
    files: TranscriptFile[];
    other: Map<CaptureSourceId, number>;
    found: Map<CaptureSourceId, number>;
  }> {
    const files: TranscriptFile[] = [];
    const other = new Map<CaptureSourceId, number>();
    const found = new Map<CaptureSourceId, number>();
    for (const id of sources) {
      const all = await this.adapter(id).discover(env);
      found.set(id, all.length);
      for (const f of all) {
        const cwd = await this.cwdOf(f, env);
        const p = place(cwd, scope);
        if (p.ok) files.push(cwd && !f.cwd ? { ...f, cwd } : f);
        else other.set(id, (other.get(id) ?? 0) + 1);
      }
    }
    return { files, other, found };
  }

  /**
   * Reads one transcript from its cursor and queues what is new. Safe to call from any process at any
   * time: it waits for the source's lock, and does nothing when the file did not change.
   */
  async captureFile(
    file: TranscriptFile,
    scope: CaptureScope,
    /** `final`: nothing is held back; `live`: a conversation going on ({@link LIVE_MS}), learned first. */
    opts: { final?: boolean; live?: boolean } = {},
  ): Promise<FileOutcome> {
    const lockDir = join(this.deps.dataDir, 'capture', 'locks');
    mkdirSync(lockDir, { recursive: true, mode: 0o700 });
    return withLock(join(lockDir, `${file.source}.lock`), LOCK_WAIT_MS, () =>
      this.captureLocked(file, scope, opts),
    );
  }

  private async captureLocked(
    file: TranscriptFile,
    scope: CaptureScope,
    opts: { final?: boolean; live?: boolean },
  ): Promise<FileOutcome> {
    const adapter = this.adapter(file.source);
    const out: FileOutcome = {
      source: file.source,
      messages: 0,
      held: 0,
      injected: 0,
      skipped: {},
      queueIds: [],
    };
    const stamped = adapter.stamp ? await adapter.stamp(file) : await stampOf(file.path);
    if (!stamped.ok) return { ...out, problem: stamped.reason };
    const stamp = stamped.stamp;
    this.cursors.refresh(file.source); // another process may have learned from this agent meanwhile
    const cursor = this.cursors.get(file.source, file.path);
    if (cursor && sameStamp(cursor.stamp, stamp) && cursor.held === 0)
      return { ...out, projectId: cursor.projectId };
    const busy = await adapter.unavailable?.(file);
    if (busy) return { ...out, problem: busy };
    const replaced =
      !cursor ||
      stamp.size < cursor.offset ||
      stamp.ino !== cursor.stamp.ino ||
      stamp.head !== cursor.stamp.head;
    const offset = file.appendOnly && !replaced ? cursor!.offset : 0;
    const quiet = this.deps.clock().getTime() - stamp.mtimeMs;
    const final = opts.final === true || quiet >= FINAL_QUIET_MS;
    const result = await adapter.read(file, offset, replaced ? undefined : cursor?.state, {
      settled: final || quiet >= SETTLE_MS,
      final,
      maxBytes: PASS_BYTES,
    });
    out.skipped = result.skipped;
    const cwd = result.cwd ?? file.cwd ?? cursor?.cwd;
    const placed = place(cwd, scope);
    if (!placed.ok) return { ...out, problem: placed.reason, outOfScope: placed.outOfScope };
    out.projectId = placed.projectId;
    const { learn, held } = this.split(result.messages, final);
    out.held = held.length;
    const fresh = this.fresh(file.source, learn);
    const sessionId = result.sessionId ?? file.sessionId;
    const built = buildSessions(fresh.messages, {
      source: file.source,
      sessionId,
      projectId: placed.projectId,
    });
    out.injected = built.injected;
    const live = opts.live === true && quiet < LIVE_MS;
    for (const s of built.sessions) out.queueIds.push((await this.deps.enqueue(s, { live })).queue_id);
    this.cursors.markSeen(file.source, fresh.keys);
    out.messages = fresh.messages.length;
    // Resume where the first held message starts (append-only), else after everything read.
    const resumeAt = held.find((m) => m.startOffset !== undefined)?.startOffset;
    const next: FileCursor = {
      source: file.source,
      path: file.path,
      sessionId,
      offset: file.appendOnly ? (resumeAt ?? result.endOffset ?? offset) : 0,
      stamp,
      ...(result.state ? { state: result.state } : {}),
      ...(cwd ? { cwd } : {}),
      projectId: placed.projectId,
      messages: (cursor?.messages ?? 0) + fresh.messages.length,
      ...(fresh.messages.length
        ? { capturedAt: this.deps.clock().toISOString() }
        : cursor?.capturedAt
          ? { capturedAt: cursor.capturedAt }
          : {}),
      held: held.length,
    };
    this.cursors.put(next);
    return out;
  }

  /**
   * What may be learned now and what waits: everything from the first message still open, and — until
   * the session ends — the person's last words, which wait for the agent's answer.
   */
  split(messages: CapturedMessage[], final: boolean): { learn: CapturedMessage[]; held: CapturedMessage[] } {
    if (final) return { learn: messages, held: [] };
    let cut = messages.findIndex((m) => m.open);
    if (cut < 0) cut = messages.length;
    while (cut > 0 && messages[cut - 1]!.role === 'user') cut--;
    return { learn: messages.slice(0, cut), held: messages.slice(cut) };
  }

  /** The messages (or the fragments of a message) not learned before, and every key to mark learned. */
  private fresh(
    source: CaptureSourceId,
    messages: CapturedMessage[],
  ): { messages: CapturedMessage[]; keys: string[] } {
    const out: CapturedMessage[] = [];
    const keys: string[] = [];
    for (const m of messages) {
      if (!m.parts || m.parts.length === 0) {
        if (!this.cursors.isSeen(source, m.id)) out.push(m);
        keys.push(m.id);
        continue;
      }
      const unseen = m.parts.filter((p) => !this.cursors.isSeen(source, p.key));
      keys.push(m.id, ...m.parts.map((p) => p.key));
      if (unseen.length === 0) continue;
      if (unseen.length === m.parts.length && !this.cursors.isSeen(source, m.id)) {
        out.push(m);
        continue;
      }
      // A fragment that arrived after the rest of its reply was learned: learned on its own.
      out.push({
        ...m,
        id: `${m.id}~${unseen[0]!.key}`,
        text: unseen.map((p) => p.text).join('\n'),
        parts: unseen,
      });
    }
    return { messages: out, keys };
  }
}
