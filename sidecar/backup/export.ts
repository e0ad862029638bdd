/**
 * One-click encrypted backup: writes the memories and episodes (optionally with vectors) and their audit
 * trail (without the content of deleted memories) into a
 * standard AES-256 encrypted ZIP (archiver + archiver-zip-encrypted), through a temporary file in the
 * target folder that is renamed only when complete. Audited as `export`.
 */
import archiver from 'archiver';
import {
  chmodSync,
  closeSync,
  createWriteStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { CancelledError, InvalidInputError } from '../shared/errors';
import type { AuditEntry, BackupExportResult } from '../protocol';
import { MIN_PASSWORD_LENGTH, backupPasswordProblem } from '../shared/backupPassword';
import { buildWhere } from '../store/where';
import {
  AUDIT_FILE,
  BACKUP_FORMAT,
  EPISODES_FILE,
  BACKUP_FORMAT_VERSION,
  MANIFEST_FILE,
  MEMORIES_FILE,
  VECTOR_ENCODING,
  defaultBackupName,
  emptyByStatus,
  episodeLine,
  memoryLine,
  sha256,
  type BackupCounts,
  type BackupManifest,
  type BackupProgress,
  type CancellationFlag,
} from './format';
import type { BackupHost } from './host';

export interface ExportOptions {
  /** The backup file, or an existing folder (or a path ending in a separator) to write `mnemo-backup-<project|all>-<UTC>.zip` into. */
  out: string;
  /** Encrypts the archive (AES-256); at least 8 characters. */
  password: string;
  /** Export one project's memories (not global ones); default every project. */
  projectId?: string;
  /** Include the vectors, so a restore with the same model needs no re-embedding. Default true. */
  includeVectors?: boolean;
  onProgress?: (p: BackupProgress) => void;
  /** Checked between records; a cancelled export leaves no file behind. */
  token?: CancellationFlag;
  /** Default: the system clock. */
  clock?: () => Date;
}

/** The result of mnemo/backup/export (declared by the contract). */
export type ExportResult = BackupExportResult;

export { MIN_PASSWORD_LENGTH };
const ZIP_FORMAT = 'zip-encrypted';

function registerZipEncrypted(): void {
  if (!archiver.isRegisteredFormat(ZIP_FORMAT)) {
    archiver.registerFormat(ZIP_FORMAT, require('archiver-zip-encrypted') as (...args: unknown[]) => unknown);
  }
}

function check(token?: CancellationFlag): void {
  if (token?.isCancellationRequested)
    throw new CancelledError('The backup was cancelled; no file was written.');
}

/**
 * Where the backup goes: `out` itself, or a default name inside the folder `out` (a folder named with a
 * trailing slash is created, as for scheduled backups). A file goes only into a folder that exists: a typo
 * in its path is said, not made into new folders.
 */
export function resolveBackupTarget(out: string, projectId: string | undefined, at: Date): string {
  if (typeof out !== 'string' || !out.trim())
    throw new InvalidInputError('Say where to write the backup (a file or a folder).');
  const abs = resolve(out);
  const isDir = out.endsWith('/') || out.endsWith(sep) || (existsSync(abs) && statSync(abs).isDirectory());
  if (isDir) {
    mkdirSync(abs, { recursive: true });
    return join(abs, defaultBackupName(projectId, at));
  }
  if (!existsSync(dirname(abs)) || !statSync(dirname(abs)).isDirectory())
    throw new InvalidInputError(
      `The folder ${dirname(abs)} does not exist; create it first, or write the backup somewhere else.`,
    );
  return abs;
}

/** Writes an encrypted backup and returns where, with its counts. */
export async function exportBackup(svc: BackupHost, opts: ExportOptions): Promise<ExportResult> {
  const passwordProblem = backupPasswordProblem(opts.password);
  if (passwordProblem) {
    throw new InvalidInputError(passwordProblem);
  }
  const clock = opts.clock ?? (() => new Date());
  const progress = opts.onProgress ?? (() => undefined);
  const includeVectors = opts.includeVectors ?? true;
  const projectId = opts.projectId?.trim() || undefined;
  const startedAt = clock();
  const target = resolveBackupTarget(opts.out, projectId, startedAt);

  const { lines, counts, projects, ids } = await collectMemories(
    svc,
    projectId,
    includeVectors,
    progress,
    opts.token,
  );
  const audit: AuditEntry[] = svc.audit
    .readAll()
    .filter(
      (e) => !projectId || (e.memory_id !== undefined && ids.has(e.memory_id)) || e.project_id === projectId,
    )
    .map((e) => withoutErasedContent(e, ids));
  counts.audit_entries = audit.length;
  check(opts.token);

  progress({ message: 'Reading episodes', percent: 55 });
  const episodeRows = await svc.episodes.rows(
    projectId ? { project_id: projectId } : undefined,
    includeVectors,
  );
  if (episodeRows.length) counts.episodes = episodeRows.length;
  const episodeLines = episodeRows.map((r) => episodeLine(r.episode, r.vector));
  check(opts.token);

  const memoriesData = Buffer.from(lines.map((l) => l + '\n').join(''), 'utf8');
  const episodesData = Buffer.from(episodeLines.map((l) => l + '\n').join(''), 'utf8');
  const auditData = Buffer.from(audit.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
  const active = svc.store.active;
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    format_version: BACKUP_FORMAT_VERSION,
    created_at: startedAt.toISOString(),
    created_by: svc.config.user,
    project_id: projectId ?? null,
    projects: [...projects].sort(),
    counts,
    embedding: { model: active?.model ?? null, dim: active?.dim ?? null },
    vectors: { included: includeVectors && counts.vectors > 0, encoding: VECTOR_ENCODING },
    files: {
      [MEMORIES_FILE]: { sha256: sha256(memoriesData), bytes: memoriesData.length },
      [AUDIT_FILE]: { sha256: sha256(auditData), bytes: auditData.length },
      // Only when there are episodes: a backup without them reads the same in every Mnemo version.
      ...(episodeRows.length
        ? { [EPISODES_FILE]: { sha256: sha256(episodesData), bytes: episodesData.length } }
        : {}),
    },
  };
  const manifestData = Buffer.from(JSON.stringify(manifest, null, 2) + '\n', 'utf8');

  progress({ message: 'Encrypting the backup', percent: 60 });
  await writeBackupFile(
    target,
    opts.password,
    [
      { name: MEMORIES_FILE, data: memoriesData },
      { name: AUDIT_FILE, data: auditData },
      ...(episodeRows.length ? [{ name: EPISODES_FILE, data: episodesData }] : []),
      { name: MANIFEST_FILE, data: manifestData },
    ],
    startedAt,
    opts.token,
    (fraction) => progress({ message: 'Encrypting the backup', percent: Math.round(60 + 35 * fraction) }),
  );
  const bytes = statSync(target).size;
  svc.audit.append([
    {
      at: clock().toISOString(),
      action: 'export',
      ...(projectId ? { project_id: projectId } : {}),
      by: svc.config.user,
      note: `exported ${counts.memories} memories and ${counts.audit_entries} audit entries${includeVectors ? ' with vectors' : ''} to ${target}`,
    },
  ]);
  progress({ message: `Backup written: ${basename(target)}`, percent: 100 });
  return { file: target, counts, bytes };
}

/** Every memory of the scope as a backup line, oldest first, with the counts the manifest states. */
async function collectMemories(
  svc: BackupHost,
  projectId: string | undefined,
  includeVectors: boolean,
  progress: NonNullable<ExportOptions['onProgress']>,
  token: ExportOptions['token'],
): Promise<{ lines: string[]; counts: BackupCounts; projects: Set<string>; ids: Set<string> }> {
  progress({ message: 'Reading memories', percent: 0 });
  check(token);
  const rows = await svc.store.find(buildWhere({ project_id: projectId }), { withVectors: includeVectors });
  rows.sort(
    (a, b) =>
      a.memory.created_at.localeCompare(b.memory.created_at) || a.memory.id.localeCompare(b.memory.id),
  );
  const counts: BackupCounts = { memories: 0, audit_entries: 0, vectors: 0, by_status: emptyByStatus() };
  const projects = new Set<string>();
  const ids = new Set<string>();
  const lines: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    check(token);
    const { memory, vector } = rows[i];
    lines.push(memoryLine(memory, vector));
    counts.memories++;
    counts.by_status[memory.status]++;
    if (vector && vector.length) counts.vectors++;
    projects.add(memory.project_id);
    ids.add(memory.id);
    if (i % 50 === 0)
      progress({
        message: `Collecting memories (${i + 1}/${rows.length})`,
        percent: Math.round(5 + (50 * i) / Math.max(1, rows.length)),
      });
  }
  return { lines, counts, projects, ids };
}

/**
 * Encrypts the entries into `target` through a temporary file of its own in the same folder, synced to disk
 * and readable by the owner only, then renamed into place: a failure or a cancellation leaves no file.
 */
async function writeBackupFile(
  target: string,
  password: string,
  entries: { name: string; data: Buffer }[],
  at: Date,
  token: ExportOptions['token'],
  onFraction: (fraction: number) => void,
): Promise<void> {
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeEncryptedZip(tmp, password, entries, at, token, onFraction);
    check(token);
    const fd = openSync(tmp, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, 0o600);
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Erasure: an entry of a memory that is no longer stored (deleted) keeps its event but not its content, so
 * a deleted memory's text never reaches a backup, whatever the audit log still holds.
 */
function withoutErasedContent(e: AuditEntry, stored: Set<string>): AuditEntry {
  if (!e.memory_id || stored.has(e.memory_id) || (e.changes === undefined && e.note === undefined)) return e;
  const { changes: _changes, note: _note, ...rest } = e;
  return rest;
}

/** Streams entries into an AES-256 encrypted ZIP at `file` (mode 0600); aborts on cancellation. */
async function writeEncryptedZip(
  file: string,
  password: string,
  entries: { name: string; data: Buffer }[],
  date: Date,
  token: CancellationFlag | undefined,
  onFraction: (f: number) => void,
): Promise<void> {
  registerZipEncrypted();
  const archive = archiver.create(ZIP_FORMAT, {
    zlib: { level: 8 },
    encryptionMethod: 'aes256',
    password,
  } as archiver.ArchiverOptions);
  const output = createWriteStream(file, { mode: 0o600, flags: 'wx' });
  const total = entries.reduce((n, e) => n + e.data.length, 0);
  let poll: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolveWrite, reject) => {
      let failed = false;
      const fail = (e: unknown): void => {
        if (failed) return;
        failed = true;
        archive.abort();
        output.destroy();
        reject(e instanceof Error ? e : new Error(String(e)));
      };
      output.on('close', () => {
        if (!failed) resolveWrite();
      });
      output.on('error', fail);
      archive.on('error', fail);
      archive.on('warning', fail);
      archive.on('progress', (p) => onFraction(total ? Math.min(1, p.fs.processedBytes / total) : 1));
      poll = setInterval(() => {
        if (token?.isCancellationRequested)
          fail(new CancelledError('The backup was cancelled; no file was written.'));
      }, 25);
      archive.pipe(output);
      for (const e of entries) archive.append(e.data, { name: e.name, date });
      archive.finalize().catch(fail);
    });
  } finally {
    if (poll) clearInterval(poll);
  }
}
