/**
 * Inspecting and restoring a backup. Import is all or nothing: the backup is read, decrypted, verified and
 * every record validated before anything is written; texts are re-embedded when the backup's model or
 * dimension differs from the store's (or it has no vectors); a failure or cancellation midway deletes what
 * was inserted and restores what was overwritten from a snapshot taken before writing.
 */
import { basename } from 'node:path';
import { BackupError, CancelledError, InvalidInputError, MnemoError, errorMessage } from '../errors';
import { memoryId, type Memory } from '../model';
import type {
  AuditEntry,
  BackupConflict,
  BackupImportMode,
  BackupImportResult,
  BackupPreview,
} from '../protocol';
import { buildWhere, type ActiveCollection } from '../store/memoryStore';
import {
  canonical,
  differingFields,
  loadBackup,
  type BackupProgress,
  type BackupRecord,
  type CancellationFlag,
  type ImportedAuditEntry,
  type LoadedBackup,
} from './format';
import type { BackupHost } from './host';

export type ImportMode = BackupImportMode;
/** The result of mnemo/backup/import (declared by the contract). */
export type ImportResult = BackupImportResult;
export type { BackupConflict, BackupPreview };
export const IMPORT_MODES: readonly ImportMode[] = ['skip', 'overwrite', 'new-project'];

export interface ImportOptions {
  /** skip: keep existing memories; overwrite: replace them with the backup's; new-project: import everything under `newProjectId` (ids recomputed). */
  mode: ImportMode;
  /** Required for mode new-project; the project must have no memories yet. */
  newProjectId?: string;
  onProgress?: (p: BackupProgress) => void;
  /** Checked between records; a cancelled import is rolled back. */
  token?: CancellationFlag;
  /** Default: the system clock. */
  clock?: () => Date;
  /** Memories per store write. Default 64. */
  batchSize?: number;
}

/** Decrypts and verifies a backup and previews it; with a store, lists the ids that already exist there. */
export async function inspectBackup(
  file: string,
  password: string,
  against?: BackupHost,
): Promise<BackupPreview> {
  const b = loadBackup(file, password);
  const m = b.manifest;
  const active = against?.store.active;
  const preview: BackupPreview = {
    file: b.file,
    format_version: m.format_version,
    created_at: m.created_at,
    created_by: m.created_by,
    project_id: m.project_id,
    projects: m.projects,
    counts: m.counts,
    embedding: m.embedding,
    vectors_included: b.records.some((r) => r.vector),
    ...(active ? { store: { model: active.model, dim: active.dim } } : {}),
    needs_reembed:
      b.records.length > 0 && (!active || !vectorsUsable(b, active) || b.records.some((r) => !r.vector)),
    conflicts: [],
  };
  if (against) {
    const existing = await getMany(
      against,
      b.records.map((r) => r.memory.id),
    );
    for (const r of b.records) {
      const cur = existing.get(r.memory.id);
      if (!cur) continue;
      const fields = differingFields(cur, r.memory);
      preview.conflicts.push({
        id: r.memory.id,
        project_id: cur.project_id,
        text: cur.text,
        differs: fields.length > 0,
        fields,
      });
    }
  }
  return preview;
}

/** Restores a backup into the store, all or nothing. */
export async function importBackup(
  svc: BackupHost,
  file: string,
  password: string,
  opts: ImportOptions,
): Promise<ImportResult> {
  if (!opts || !IMPORT_MODES.includes(opts.mode))
    throw new InvalidInputError(`The import mode must be one of ${IMPORT_MODES.join(', ')}.`);
  const newProject = opts.newProjectId?.trim();
  if (opts.mode === 'new-project' && !newProject)
    throw new InvalidInputError('Importing as a new project needs the new project id.');
  const clock = opts.clock ?? (() => new Date());
  const progress = opts.onProgress ?? (() => undefined);
  const batchSize = Math.max(1, Math.floor(opts.batchSize ?? 64));
  const check = (): void => {
    if (opts.token?.isCancellationRequested)
      throw new CancelledError('The import was cancelled; nothing was changed.');
  };
  const name = basename(file);

  // 1. Read, decrypt and validate everything.
  progress({ message: `Reading ${name}`, percent: 0 });
  const backup = loadBackup(file, password);
  check();
  let records = backup.records.map((r) => ({ ...r, memory: { ...r.memory } }));
  const idMap = new Map<string, string>();
  let merged = 0;
  if (opts.mode === 'new-project') {
    const existing = await svc.store.find(buildWhere({ project_id: newProject }));
    if (existing.length > 0) {
      throw new BackupError(
        'conflict',
        `Project ${newProject} already has ${existing.length} memories; import into a new project id, or use skip or overwrite.`,
      );
    }
    const byId = new Map<string, BackupRecord>();
    for (const r of records) {
      const id = memoryId(newProject!, r.memory.text);
      idMap.set(r.memory.id, id);
      const moved: BackupRecord = { ...r, memory: { ...r.memory, id, project_id: newProject! } };
      const prev = byId.get(id);
      if (prev) merged++;
      // Two texts that normalize the same now share one id: keep the most recently updated.
      if (!prev || prev.memory.updated_at < moved.memory.updated_at) byId.set(id, moved);
    }
    records = [...byId.values()];
  }

  // 2. Plan: what is new, what replaces an existing memory, what stays.
  progress({ message: 'Comparing with the store', percent: 10 });
  const existing = await getMany(
    svc,
    records.map((r) => r.memory.id),
  );
  const toWrite: BackupRecord[] = [];
  const overwrite = new Map<string, Memory>();
  let skipped = 0;
  for (const r of records) {
    check();
    const cur = existing.get(r.memory.id);
    if (!cur) toWrite.push(r);
    else if (opts.mode === 'overwrite' && differingFields(cur, r.memory).length > 0) {
      toWrite.push(r);
      overwrite.set(cur.id, cur);
    } else skipped++;
  }

  // 3. Vectors: the backup's when they fit the store's collection, else re-embedded with the store's model.
  let active = svc.store.active;
  const reusable = (r: BackupRecord): boolean => !!active && !!r.vector && vectorsUsable(backup, active);
  let reembedded = 0;
  if (toWrite.length > 0 && (!active || toWrite.some((r) => !reusable(r)))) {
    progress({ message: 'Loading the embedding model', percent: 15 });
    await svc.requireModel();
    active = svc.store.active;
    if (!active) throw new MnemoError('The memory store has no collection after loading the model.');
    const need = toWrite.filter((r) => !reusable(r));
    for (let i = 0; i < need.length; i += 32) {
      check();
      const batch = need.slice(i, i + 32);
      const vectors = await svc.embedding.embed(batch.map((r) => r.memory.text));
      batch.forEach((r, j) => {
        r.vector = vectors[j];
        r.memory.embedding_model = active!.model;
        r.memory.embedding_dim = vectors[j].length;
      });
      reembedded += batch.length;
      progress({
        message: `Re-embedding (${Math.min(i + 32, need.length)}/${need.length})`,
        percent: Math.round(15 + (35 * (i + batch.length)) / need.length),
      });
    }
  }
  const target = active;

  // 4. Snapshot what will be overwritten, with vectors, so a failure can put it back.
  const snapshot = new Map<string, { memory: Memory; vector: number[] }>();
  if (overwrite.size > 0) {
    const projects = [...new Set([...overwrite.values()].map((m) => m.project_id))];
    for (const row of await svc.store.find(buildWhere({ project_ids: projects }), { withVectors: true })) {
      if (overwrite.has(row.memory.id) && row.vector && row.vector.length)
        snapshot.set(row.memory.id, { memory: row.memory, vector: row.vector });
    }
    const missing = [...overwrite.keys()].filter((id) => !snapshot.has(id));
    if (missing.length)
      throw new MnemoError(
        `Could not read memory ${missing[0]} with its vector before overwriting it; nothing was changed.`,
      );
  }

  // 5. The audit entries to append once everything is written.
  const now = clock().toISOString();
  const auditOut = importAuditEntries(svc, backup, toWrite, overwrite, idMap, opts.mode, now);

  // 6. Write, rolling back on any failure or cancellation.
  const inserted: string[] = [];
  const replaced: string[] = [];
  try {
    for (let i = 0; i < toWrite.length; i += batchSize) {
      check();
      const batch = toWrite.slice(i, i + batchSize);
      for (const r of batch) (overwrite.has(r.memory.id) ? replaced : inserted).push(r.memory.id);
      await svc.store.upsert(
        batch.map((r) => ({ memory: r.memory, vector: r.vector! })),
        target,
      );
      progress({
        message: `Writing memories (${Math.min(i + batchSize, toWrite.length)}/${toWrite.length})`,
        percent: Math.round(50 + (45 * (i + batch.length)) / toWrite.length),
      });
    }
    check();
    svc.audit.append(auditOut);
  } catch (e) {
    progress({ message: 'Rolling back' });
    try {
      for (let i = 0; i < inserted.length; i += 500)
        await svc.store.delete(inserted.slice(i, i + 500), target);
      const restore = replaced.map((id) => snapshot.get(id)!);
      for (let i = 0; i < restore.length; i += batchSize)
        await svc.store.upsert(restore.slice(i, i + batchSize), target);
    } catch (undoError) {
      throw new MnemoError(
        `The import of ${name} failed (${errorMessage(e).replace(/\.$/, '')}) and undoing it also failed (${errorMessage(undoError).replace(/\.$/, '')}); restore the store from a backup.`,
        { cause: e },
      );
    }
    if (e instanceof CancelledError) throw e;
    if (e instanceof BackupError) throw e;
    throw new BackupError(
      'rolled-back',
      `The import of ${name} failed and was undone, so nothing was changed: ${errorMessage(e)}`,
      {
        cause: e,
        code: e instanceof MnemoError ? e.code : undefined,
      },
    );
  }
  const projects = [...new Set(toWrite.map((r) => r.memory.project_id))].sort();
  svc.notifyChanged(
    projects,
    toWrite.map((r) => r.memory.id),
  );
  progress({
    message: `Imported ${toWrite.length - replaced.length} new and ${replaced.length} replaced memories`,
    percent: 100,
  });
  return {
    mode: opts.mode,
    inserted: toWrite.length - replaced.length,
    overwritten: replaced.length,
    skipped,
    reembedded,
    audit_entries: auditOut.length,
    merged,
    projects,
    ids: toWrite.map((r) => r.memory.id),
  };
}

/** The backup's vectors fit the collection: same model and dimension. */
function vectorsUsable(b: LoadedBackup, active: ActiveCollection): boolean {
  return b.manifest.embedding.model === active.model && b.manifest.embedding.dim === active.dim;
}

async function getMany(svc: BackupHost, ids: string[]): Promise<Map<string, Memory>> {
  const out = new Map<string, Memory>();
  for (let i = 0; i < ids.length; i += 500)
    for (const m of await svc.store.get(ids.slice(i, i + 500))) out.set(m.id, m);
  return out;
}

/**
 * The backup's own entries (marked `imported_from`, remapped to the new ids in new-project mode, minus those
 * already in the log) followed by one `import` entry per memory written.
 */
function importAuditEntries(
  svc: BackupHost,
  backup: LoadedBackup,
  written: BackupRecord[],
  overwritten: Map<string, Memory>,
  idMap: Map<string, string>,
  mode: ImportMode,
  now: string,
): ImportedAuditEntry[] {
  const from = basename(backup.file);
  const known = new Set(svc.audit.readAll().map((e) => auditKey(e)));
  const out: ImportedAuditEntry[] = [];
  const newProject = mode === 'new-project' ? written[0]?.memory.project_id : undefined;
  for (const e of backup.audit) {
    let entry: ImportedAuditEntry = { ...e };
    delete entry.imported_from;
    if (mode === 'new-project') {
      const id = entry.memory_id ? idMap.get(entry.memory_id) : undefined;
      if (!id || !newProject) continue; // history of memories that are not in the backup has no place in the new project
      entry = { ...entry, memory_id: id, project_id: newProject };
    }
    const key = auditKey(entry);
    if (known.has(key)) continue;
    known.add(key);
    out.push({ ...entry, imported_from: from });
  }
  const reverse = new Map([...idMap].map(([a, b]) => [b, a]));
  const originalProject = new Map(backup.records.map((r) => [r.memory.id, r.memory.project_id]));
  for (const r of written) {
    const before = overwritten.get(r.memory.id);
    const changes: AuditEntry['changes'] = {};
    if (before)
      for (const f of differingFields(before, r.memory))
        changes[f] = [before[f as keyof Memory] ?? null, r.memory[f as keyof Memory] ?? null];
    const original = reverse.get(r.memory.id);
    out.push({
      at: now,
      action: 'import',
      memory_id: r.memory.id,
      project_id: r.memory.project_id,
      by: svc.config.user,
      ...(before ? { changes } : {}),
      note: `imported from ${from} (${mode}${before ? ', replaced the stored memory' : ''}${original && original !== r.memory.id ? `; was ${original} in ${originalProject.get(original) ?? 'the backup'}` : ''})`,
    });
  }
  return out;
}

function auditKey(e: ImportedAuditEntry): string {
  const { imported_from: _from, ...rest } = e;
  return canonical(rest);
}
