/**
 * The backup format (version 1), shared by export, inspect and import. A backup is a ZIP whose entries are
 * AES-256 encrypted (WinZip AE), holding:
 * - `memories.jsonl`: one {@link Memory} per line, every field, times in UTC; with `vector` (base64 of the
 *   little-endian float32 values) when vectors were included;
 * - `audit.jsonl`: the audit entries of the exported memories/project (or all of them);
 * - `episodes.jsonl` (since Mnemo 0.x, optional): one {@link Episode} per line, with `vector` like memories;
 * - `manifest.json`: {@link BackupManifest}, with the SHA-256 of every other file.
 * A backup is untrusted input: it is read under {@link BACKUP_LIMITS}, streamed line by line (never one
 * string), and every record is validated here and re-checked by import. See docs/backup.md.
 */
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { BackupError, type BackupFailure } from '../shared/errors';
import {
  STATUSES,
  isCategory,
  isSourceType,
  isStatus,
  type Episode,
  type Memory,
  type MemoryStatus,
} from '../model';
import type { AuditEntry, BackupCounts, BackupOrigin } from '../protocol';
import { ZipFile, ZipReadError, type ZipFailure, type ZipLimits } from './zipReader';

export const BACKUP_FORMAT = 'mnemo-backup';
export const BACKUP_FORMAT_VERSION = 1;
export const MEMORIES_FILE = 'memories.jsonl';
export const AUDIT_FILE = 'audit.jsonl';
export const MANIFEST_FILE = 'manifest.json';
export const EPISODES_FILE = 'episodes.jsonl';
export const VECTOR_ENCODING = 'float32le-base64';

/** What Mnemo reads of a backup at most, each checked before the bytes are read or inflated. */
export interface BackupLimits extends ZipLimits {
  /** manifest.json. */
  maxManifestBytes: number;
  /** One line of a JSONL file. */
  maxLineBytes: number;
  /** Memories plus episodes plus audit entries. */
  maxRecords: number;
}

const GiB = 1024 * 1024 * 1024;
export const BACKUP_LIMITS: BackupLimits = {
  maxFileBytes: 2 * GiB,
  maxEntries: 16,
  maxEntryBytes: 2 * GiB,
  maxTotalBytes: 3 * GiB,
  maxManifestBytes: 1024 * 1024,
  maxLineBytes: 1024 * 1024,
  maxRecords: 2_000_000,
};

/** Progress of an export or import. */
export interface BackupProgress {
  message: string;
  /** 0..100 */
  percent?: number;
}

/** Checked between records; VS Code's and vscode-jsonrpc's CancellationToken both fit. */
export interface CancellationFlag {
  readonly isCancellationRequested: boolean;
}

/** What a backup holds (declared by the contract: it is part of the export, inspect and import results). */
export type { BackupCounts };

export interface BackupManifest extends BackupOrigin {
  format: typeof BACKUP_FORMAT;
  /** Readers refuse versions they do not know. */
  format_version: number;
  vectors: { included: boolean; encoding: typeof VECTOR_ENCODING };
  /** SHA-256 (hex) and size of every other file of the archive. */
  files: Record<string, { sha256: string; bytes: number }>;
}

/** One line of memories.jsonl, read back. */
export interface BackupRecord {
  memory: Memory;
  vector?: number[];
}

/** One line of episodes.jsonl, read back. */
export interface EpisodeRecord {
  episode: Episode;
  vector?: number[];
}

/** An audit entry as stored after an import: the original entry, marked with the backup it came from. */
export type ImportedAuditEntry = AuditEntry & { imported_from?: string };

/** A backup read, decrypted and verified. */
export interface LoadedBackup {
  file: string;
  manifest: BackupManifest;
  records: BackupRecord[];
  episodes: EpisodeRecord[];
  audit: ImportedAuditEntry[];
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function emptyByStatus(): Record<MemoryStatus, number> {
  return Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<MemoryStatus, number>;
}

/** A UTC ISO-8601 string with Z for any parseable time (unchanged when not parseable). */
export function toUtc(s: string): string {
  const t = Date.parse(s);
  return Number.isFinite(t) ? new Date(t).toISOString() : s;
}

/** `20261130T061500Z` */
export function compactUtc(d: Date): string {
  return d
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** The part of a default file name that names the scope: the project id made file-name safe, or `all`. */
export function scopeSlug(projectId?: string): string {
  if (!projectId) return 'all';
  return (
    projectId
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(0, 80) || 'project'
  );
}

/** `mnemo-backup-<project|all>-<UTC>.zip` */
export function defaultBackupName(projectId: string | undefined, at: Date): string {
  return `mnemo-backup-${scopeSlug(projectId)}-${compactUtc(at)}.zip`;
}

export function encodeVector(v: number[]): string {
  return Buffer.from(new Float32Array(v).buffer).toString('base64');
}

export function decodeVector(b64: string): number[] | undefined {
  const buf = Buffer.from(b64, 'base64');
  if (buf.length === 0 || buf.length % 4 !== 0) return undefined;
  const out = new Array<number>(buf.length / 4);
  for (let i = 0; i < out.length; i++) {
    const x = buf.readFloatLE(i * 4);
    if (!Number.isFinite(x)) return undefined;
    out[i] = x;
  }
  return out;
}

/** The memory as written to memories.jsonl: every field, in schema order, times in UTC. */
export function memoryLine(m: Memory, vector?: number[]): string {
  const out: Record<string, unknown> = { ...m };
  for (const [k, v] of Object.entries(out)) if (k.endsWith('_at') && typeof v === 'string') out[k] = toUtc(v);
  if (vector && vector.length > 0) out.vector = encodeVector(vector);
  return JSON.stringify(out);
}

/** JSON with sorted keys: the identity of a memory or an audit entry for comparisons. */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    val && typeof val === 'object' && !Array.isArray(val)
      ? Object.fromEntries(
          Object.entries(val as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : val,
  );
}

/** Names of the fields whose values differ between two memories (absent and null count as the same). */
export function differingFields(a: Memory, b: Memory): string[] {
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(ra), ...Object.keys(rb)])];
  return keys.filter((k) => canonical(ra[k] ?? null) !== canonical(rb[k] ?? null));
}

/** A list of {@link TimeSpan}-shaped objects (the times a message mentions), as memories and episodes carry. */
function isTimeSpans(v: unknown): v is { text: string; start: string; end: string }[] {
  return (
    Array.isArray(v) &&
    v.every(
      (t: unknown) =>
        !!t &&
        typeof t === 'object' &&
        ['text', 'start', 'end'].every((k) => typeof (t as Record<string, unknown>)[k] === 'string'),
    )
  );
}

const AUDIT_ACTIONS = [
  'create',
  'update',
  'confirm',
  'wrong',
  'delete',
  'decay',
  'archive',
  'refresh',
  'promote',
  'import',
  'export',
  'report',
];

/** A record's optional `vector` (none, or float32 values of the manifest's dimension), or why it is invalid. */
function parseVector(v: unknown, dim: number | null): { vector?: number[] } | string {
  if (v === undefined) return {};
  if (typeof v !== 'string') return 'vector is not a base64 string';
  const vector = decodeVector(v);
  if (!vector) return 'vector is not valid float32 data';
  if (dim !== null && vector.length !== dim)
    return `vector has ${vector.length} dimensions, the manifest says ${dim}`;
  return { vector };
}

/** One JSONL line as an object, or why it is not one. */
function parseObject(line: string): Record<string, unknown> | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'not valid JSON';
  }
  return v && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : 'not a JSON object';
}

/** Parses and checks one memories.jsonl line; returns why it is invalid as a string. */
export function parseRecord(line: string, dim: number | null): BackupRecord | string {
  const o = parseObject(line);
  if (typeof o === 'string') return o;
  const str = (k: string): boolean => typeof o[k] === 'string';
  const num = (k: string): boolean => typeof o[k] === 'number' && Number.isFinite(o[k]);
  const time = (k: string): boolean => str(k) && Number.isFinite(Date.parse(o[k] as string));
  if (!str('id') || !/^mem_[0-9a-f]{16}$/.test(o.id as string)) return 'bad id';
  if (!str('text') || !(o.text as string).trim()) return 'empty text';
  if (!isCategory(o.category)) return `unknown category ${JSON.stringify(o.category)}`;
  if (!isSourceType(o.source_type)) return `unknown source_type ${JSON.stringify(o.source_type)}`;
  if (!isStatus(o.status)) return `unknown status ${JSON.stringify(o.status)}`;
  if (!str('project_id') || !(o.project_id as string)) return 'no project_id';
  if (!num('confidence_score')) return 'confidence_score is not a number'; // clamped to 0..1 on import
  if (typeof o.is_actionable !== 'boolean') return 'is_actionable is not a boolean';
  if (!Array.isArray(o.source_ref) || !o.source_ref.every((r) => typeof r === 'string'))
    return 'source_ref is not a list of strings';
  for (const k of ['created_at', 'updated_at', 'last_seen_at']) if (!time(k)) return `${k} is not a time`;
  for (const k of ['times_seen', 'score', 'embedding_dim', 'use_count'])
    if (!num(k)) return `${k} is not a number`;
  for (const k of ['added_by', 'reason', 'embedding_model']) if (!str(k)) return `${k} is not a string`;
  // Optional: the times the text mentions ("every Sunday", "last night").
  if (o.times !== undefined && o.times !== null && !isTimeSpans(o.times))
    return 'times is not a list of time spans';
  const memory: Memory = {
    id: o.id as string,
    text: o.text as string,
    category: o.category,
    source_type: o.source_type,
    project_id: o.project_id as string,
    confidence_score: o.confidence_score as number,
    is_actionable: o.is_actionable,
    source_ref: o.source_ref as string[],
    status: o.status,
    created_at: toUtc(o.created_at as string),
    updated_at: toUtc(o.updated_at as string),
    last_seen_at: toUtc(o.last_seen_at as string),
    times_seen: o.times_seen as number,
    added_by: o.added_by as string,
    reason: o.reason as string,
    score: o.score as number,
    embedding_model: o.embedding_model as string,
    embedding_dim: o.embedding_dim as number,
    use_count: o.use_count as number,
  };
  if (isTimeSpans(o.times) && o.times.length)
    memory.times = o.times.map((t) => ({ text: t.text, start: t.start, end: t.end }));
  // Any other field (confirmed_by, last_used_at, promoted_from, ... and any added to the schema later) is
  // kept when it is a string, number or boolean.
  const extra = memory as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    if (Object.hasOwn(memory, k) || k === 'times' || k === 'vector' || v === undefined || v === null)
      continue;
    if (typeof v !== 'string' && typeof v !== 'boolean' && !(typeof v === 'number' && Number.isFinite(v)))
      return `${k} is not a string, number or boolean`;
    if (k.endsWith('_at') && !time(k)) return `${k} is not a time`;
    extra[k] = k.endsWith('_at') ? toUtc(v as string) : v;
  }
  const vector = parseVector(o.vector, dim);
  return typeof vector === 'string' ? vector : { memory, ...vector };
}

function parseAuditEntry(line: string): ImportedAuditEntry | string {
  const o = parseObject(line);
  if (typeof o === 'string') return o;
  if (typeof o.at !== 'string' || !Number.isFinite(Date.parse(o.at))) return 'no time';
  if (typeof o.action !== 'string' || !AUDIT_ACTIONS.includes(o.action))
    return `unknown action ${JSON.stringify(o.action)}`;
  if (typeof o.by !== 'string') return 'no author';
  for (const k of ['memory_id', 'project_id', 'note', 'imported_from'])
    if (o[k] !== undefined && typeof o[k] !== 'string') return `${k} is not a string`;
  if (
    o.changes !== undefined &&
    (typeof o.changes !== 'object' || o.changes === null || Array.isArray(o.changes))
  )
    return 'changes is not an object';
  return o as unknown as ImportedAuditEntry;
}

const EPISODE_STRINGS = [
  'id',
  'project_id',
  'session_id',
  'message_id',
  'role',
  'speaker',
  'text',
  'occurred_at',
  'created_at',
] as const;

/** The episode as written to episodes.jsonl. */
export function episodeLine(e: Episode, vector?: number[]): string {
  const out: Record<string, unknown> = {
    ...e,
    occurred_at: toUtc(e.occurred_at),
    created_at: toUtc(e.created_at),
  };
  if (vector && vector.length > 0) out.vector = encodeVector(vector);
  return JSON.stringify(out);
}

/** Parses and checks one episodes.jsonl line; returns why it is invalid as a string. */
export function parseEpisode(line: string, dim: number | null): EpisodeRecord | string {
  const o = parseObject(line);
  if (typeof o === 'string') return o;
  for (const k of EPISODE_STRINGS) if (typeof o[k] !== 'string') return `${k} is not a string`;
  if (!/^ep_[0-9a-f]{16}$/.test(o.id as string)) return 'bad id';
  if (!(o.text as string).trim()) return 'empty text';
  if (!(o.project_id as string)) return 'no project_id';
  if (!isSourceType(o.source_type)) return `unknown source_type ${JSON.stringify(o.source_type)}`;
  for (const k of ['occurred_at', 'created_at'])
    if (!Number.isFinite(Date.parse(o[k] as string))) return `${k} is not a time`;
  for (const k of ['source_ref', 'memory_ids'])
    if (!Array.isArray(o[k]) || !(o[k] as unknown[]).every((r) => typeof r === 'string'))
      return `${k} is not a list of strings`;
  if (!isTimeSpans(o.times)) return 'times is not a list of time spans';
  const episode: Episode = {
    id: o.id as string,
    project_id: o.project_id as string,
    session_id: o.session_id as string,
    message_id: o.message_id as string,
    role: o.role as string,
    speaker: o.speaker as string,
    text: o.text as string,
    occurred_at: toUtc(o.occurred_at as string),
    source_type: o.source_type,
    source_ref: o.source_ref as string[],
    times: (o.times as Episode['times']).map((t) => ({ text: t.text, start: t.start, end: t.end })),
    memory_ids: o.memory_ids as string[],
    created_at: toUtc(o.created_at as string),
  };
  for (const k of ['previous_id', 'next_id'] as const) {
    const v = o[k];
    if (v === undefined) continue;
    if (typeof v !== 'string' || (v !== '' && !/^ep_[0-9a-f]{16}$/.test(v)))
      return `${k} is not an episode id`;
    episode[k] = v;
  }
  if (o.occurrence !== undefined) {
    if (!Number.isSafeInteger(o.occurrence) || (o.occurrence as number) < 0)
      return 'occurrence is not a count';
    if (o.occurrence) episode.occurrence = o.occurrence as number;
  }
  const vector = parseVector(o.vector, dim);
  return typeof vector === 'string' ? vector : { episode, ...vector };
}

function fail(reason: BackupFailure, message: string, cause?: unknown): never {
  throw new BackupError(reason, message, cause === undefined ? undefined : { cause });
}

const ZIP_FAILURE: Record<ZipFailure, { reason: BackupFailure; message: (name: string) => string }> = {
  'not-zip': {
    reason: 'not-a-backup',
    message: (n) => `${n} is not a Mnemo backup (it is not a ZIP archive).`,
  },
  truncated: {
    reason: 'truncated',
    message: (n) => `${n} is incomplete (the file was cut short), so it cannot be read.`,
  },
  'not-encrypted': {
    reason: 'not-a-backup',
    message: (n) => `${n} is not a Mnemo backup (its contents are not AES-encrypted).`,
  },
  unsupported: {
    reason: 'not-a-backup',
    message: (n) => `${n} uses a ZIP encryption or compression that Mnemo backups never use.`,
  },
  'wrong-password': { reason: 'wrong-password', message: (n) => `The password is wrong for ${n}.` },
  'auth-failed': {
    reason: 'tampered',
    message: (n) => `${n} has been modified or damaged (its contents fail the encryption integrity check).`,
  },
  corrupt: {
    reason: 'tampered',
    message: (n) => `${n} is damaged or has been modified, so it cannot be read.`,
  },
  'too-large': {
    reason: 'too-large',
    message: (n) =>
      `${n} is larger than a Mnemo backup may be (it would inflate past Mnemo's limits), so it was not read.`,
  },
};

/** A ZIP failure as a BackupError with one sentence. */
function zipFail(e: unknown, name: string): never {
  if (e instanceof ZipReadError) fail(ZIP_FAILURE[e.reason].reason, ZIP_FAILURE[e.reason].message(name), e);
  throw e;
}

/**
 * The lines of an entry, one at a time, with its SHA-256 and size checked at the end; a line longer than
 * `maxLineBytes` is refused as soon as it is. The entry is never held as one string.
 */
async function* entryLines(
  zip: ZipFile,
  name: string,
  f: string,
  password: string,
  expected: { sha256: string; bytes: number },
  limits: BackupLimits,
): AsyncGenerator<string> {
  const entry = zip.entry(f);
  if (!entry) fail('tampered', `${name} is damaged: ${f}, listed in its manifest, is missing.`);
  if (typeof expected.bytes === 'number' && entry.size !== expected.bytes)
    fail('tampered', `${name} has been modified: ${f} does not match the size in its manifest.`);
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  let rest = '';
  try {
    for await (const chunk of zip.read(entry, password)) {
      hash.update(chunk);
      const parts = (rest + decoder.write(chunk)).split('\n');
      rest = parts.pop()!;
      if (rest.length > limits.maxLineBytes)
        fail(
          'too-large',
          `${name} has a line in ${f} longer than ${limits.maxLineBytes} characters, which no Mnemo backup writes, so it was not read.`,
        );
      for (const line of parts) if (line.trim()) yield line;
    }
  } catch (e) {
    if (e instanceof BackupError) throw e;
    zipFail(e, name);
  }
  rest += decoder.end();
  if (hash.digest('hex') !== expected.sha256)
    fail('tampered', `${name} has been modified: ${f} does not match the SHA-256 in its manifest.`);
  if (rest.trim()) yield rest;
}

/**
 * Reads, decrypts and verifies a backup completely: the ZIP's encryption and integrity codes, the manifest's
 * format version, the SHA-256 and counts of every file, and every record, under `limits` (file size,
 * entries, inflated sizes, line length, records), streaming each file line by line. Throws a
 * {@link BackupError} with one sentence; it changes nothing.
 */
export async function loadBackup(
  file: string,
  password: string,
  limits: BackupLimits = BACKUP_LIMITS,
): Promise<LoadedBackup> {
  const name = basename(file);
  if (typeof password !== 'string' || password.length === 0)
    fail('wrong-password', `A password is needed to open ${name}.`);
  if (!existsSync(file) || !statSync(file).isFile()) fail('not-found', `There is no backup file at ${file}.`);
  let zip: ZipFile;
  try {
    zip = ZipFile.open(file, limits);
  } catch (e) {
    zipFail(e, name);
  }
  try {
    return await readBackup(zip, file, name, password, limits);
  } finally {
    zip.close();
  }
}

async function readBackup(
  zip: ZipFile,
  file: string,
  name: string,
  password: string,
  limits: BackupLimits,
): Promise<LoadedBackup> {
  const manifestEntry = zip.entry(MANIFEST_FILE);
  if (!manifestEntry) fail('not-a-backup', `${name} is not a Mnemo backup (it has no ${MANIFEST_FILE}).`);
  let manifestBuf: Buffer;
  try {
    manifestBuf = await zip.readAll(manifestEntry, password, limits.maxManifestBytes);
  } catch (e) {
    zipFail(e, name);
  }
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(manifestBuf.toString('utf8')) as BackupManifest;
  } catch (e) {
    fail(
      'tampered',
      `The manifest of ${name} is not valid JSON, so the backup is damaged or was modified.`,
      e,
    );
  }
  if (!manifest || typeof manifest !== 'object' || manifest.format !== BACKUP_FORMAT)
    fail('not-a-backup', `${name} is not a Mnemo backup (its manifest is not one).`);
  if (manifest.format_version !== BACKUP_FORMAT_VERSION) {
    fail(
      'unsupported-version',
      `${name} uses backup format version ${JSON.stringify(manifest.format_version)}, which this version of Mnemo cannot read.`,
    );
  }
  if (!manifest.files || typeof manifest.files !== 'object' || !manifest.counts || !manifest.embedding) {
    fail('tampered', `The manifest of ${name} is incomplete, so the backup is damaged or was modified.`);
  }
  const listed = (f: string): { sha256: string; bytes: number } => {
    const expected = manifest.files[f];
    if (!expected || typeof expected.sha256 !== 'string')
      fail(
        'tampered',
        `The manifest of ${name} does not list ${f}, so the backup is damaged or was modified.`,
      );
    return expected;
  };
  const dim = typeof manifest.embedding.dim === 'number' ? manifest.embedding.dim : null;
  let total = 0;
  const count = (): void => {
    if (++total > limits.maxRecords)
      fail('too-large', `${name} holds more than ${limits.maxRecords} records, so it was not read.`);
  };
  /** Every line of one JSONL entry parsed (ids unique when `idOf` is given); the first bad line refuses the whole backup. */
  const readAll = async <T>(
    file: string,
    label: string,
    parse: (line: string) => T | string,
    idOf?: (r: T) => string,
  ): Promise<T[]> => {
    const out: T[] = [];
    const ids = new Set<string>();
    let i = 0;
    for await (const line of entryLines(zip, name, file, password, listed(file), limits)) {
      i++;
      count();
      const r = parse(line);
      if (typeof r === 'string')
        fail('invalid-record', `${label} ${i} in ${name} is invalid (${r}), so nothing was imported.`);
      const id = idOf?.(r);
      if (id !== undefined && ids.has(id))
        fail('invalid-record', `${label} ${i} in ${name} repeats the id ${id}, so nothing was imported.`);
      if (id !== undefined) ids.add(id);
      out.push(r);
    }
    return out;
  };
  const records = await readAll(
    MEMORIES_FILE,
    'Memory',
    (l) => parseRecord(l, dim),
    (r) => r.memory.id,
  );
  const episodes = manifest.files[EPISODES_FILE]
    ? await readAll(
        EPISODES_FILE,
        'Episode',
        (l) => parseEpisode(l, dim),
        (r) => r.episode.id,
      )
    : [];
  const audit: ImportedAuditEntry[] = await readAll(AUDIT_FILE, 'Audit entry', parseAuditEntry);
  const episodeCount = manifest.counts.episodes ?? 0;
  if (
    records.length !== manifest.counts.memories ||
    audit.length !== manifest.counts.audit_entries ||
    episodes.length !== episodeCount
  ) {
    fail(
      'tampered',
      `${name} has been modified: it holds ${records.length} memories, ${episodes.length} episodes and ${audit.length} audit entries but its manifest says ${manifest.counts.memories}, ${episodeCount} and ${manifest.counts.audit_entries}.`,
    );
  }
  return { file, manifest, records, episodes, audit };
}
