/**
 * Inspecting and restoring a backup. A backup is untrusted input (./untrusted.ts): each record is checked
 * again, re-redacted and placed by the importing user's choices, not the backup's claims, and the preview
 * comes from the same plan the import follows — where records really go, conflicts, refusals with reasons.
 * Import is all or nothing: the backup is read, decrypted, verified and every record validated before
 * anything is written; texts are re-embedded when the backup's model or dimension differs from the store's
 * (or it has no vectors); a failure or cancellation midway deletes what was inserted and restores what was
 * overwritten from a snapshot taken before writing.
 */
import { basename } from 'node:path';
import { BackupError, CancelledError, InvalidInputError, MnemoError, errorMessage } from '../shared/errors';
import { memoryId, normalizeText, type Memory } from '../model';
import type {
  AuditEntry,
  BackupConflict,
  BackupImportMode,
  BackupImportResult,
  BackupPreview,
  BackupRefusal,
  BackupTarget,
} from '../protocol';
import { episodeVectorText } from '../store/episodeStore';
import { buildWhere } from '../store/where';
import type { ActiveCollection } from '../store/storeState';
import {
  BACKUP_LIMITS,
  canonical,
  differingFields,
  loadBackup,
  type BackupLimits,
  type BackupProgress,
  type BackupRecord,
  type CancellationFlag,
  type EpisodeRecord,
  type ImportedAuditEntry,
  type LoadedBackup,
} from './format';
import type { BackupHost } from './host';
import {
  checkEpisode,
  checkMemory,
  claimedConfirmations,
  needsConsent,
  type RefusalReason,
} from './untrusted';

export type ImportMode = BackupImportMode;
/** The result of mnemo/backup/import (declared by the contract). */
export type ImportResult = BackupImportResult;
export type { BackupConflict, BackupPreview };
export const IMPORT_MODES: readonly ImportMode[] = ['skip', 'overwrite', 'new-project'];

/**
 * Texts per re-embedding call of a restore: the provider sorts a call's texts by length and sends its
 * batches of 32 at once, so a longer window pads less and never leaves the model idle between batches
 * (as bulk import: docs/benchmarks.md). Cancellation and progress come between windows.
 */
const REEMBED_WINDOW = 256;

/** Where records go and with whose consent: the same for the preview and the import. */
export interface PlacementOptions {
  /** skip: keep existing memories; overwrite: replace them with the backup's; new-project: import everything under `newProjectId` (ids recomputed). */
  mode?: ImportMode;
  /** Required for mode new-project; the project must have no memories yet. */
  newProjectId?: string;
  /** The projects the user is working in: the backup's records for them go in without consent. */
  projectIds?: string[];
  /** The user saw the preview and agreed to records for global or other projects, and to overwriting stored memories. Default false. */
  consent?: boolean;
  /** The user made this backup: keep its confirmations and tiers (protocol `keep_confirmations`). Default false. */
  keepConfirmations?: boolean;
  /** Default: the system clock. */
  clock?: () => Date;
  /** Default {@link BACKUP_LIMITS}. */
  limits?: BackupLimits;
}

export interface ImportOptions extends PlacementOptions {
  mode: ImportMode;
  onProgress?: (p: BackupProgress) => void;
  /** Checked between records; a cancelled import is rolled back. */
  token?: CancellationFlag;
  /** Memories per store write. Default 64. */
  batchSize?: number;
}

/** What an import of a backup would do, record by record. */
interface Plan {
  /** Records to write (checked, redacted, under their final project and id). */
  toWrite: BackupRecord[];
  /** Stored memories the import replaces, by id. */
  overwrite: Map<string, Memory>;
  skipped: number;
  merged: number;
  /** Backup id -> the id it is imported under, when they differ. */
  idMap: Map<string, string>;
  /** Ids of the backup that do not match their text and would have hit a stored memory with other text: imported under their text's id. */
  idsRecomputed: number;
  episodes: EpisodeRecord[];
  episodesSkipped: number;
  refused: Map<RefusalReason, { memories: number; episodes: number }>;
  conflicts: BackupConflict[];
  targets: Map<string, BackupTarget>;
  /** Records or overwrites that need the user's consent (held back while it is not given). */
  consentNeeded: number;
  /** Backup id -> the memory it is imported as or kept as (not for refused records). */
  placed: Map<string, Memory>;
  /** Whether the import may write to a project (null: entries of no project). */
  allowed: (project: string | null) => boolean;
}

function modeOf(opts: PlacementOptions): ImportMode {
  const mode = opts.mode ?? 'skip';
  if (!IMPORT_MODES.includes(mode))
    throw new InvalidInputError(`The import mode must be one of ${IMPORT_MODES.join(', ')}.`);
  if (mode === 'new-project' && !opts.newProjectId?.trim())
    throw new InvalidInputError('Importing as a new project needs the new project id.');
  return mode;
}

/** Decrypts and verifies a backup and previews what importing it with these options would do; changes nothing. */
export async function inspectBackup(
  file: string,
  password: string,
  against?: BackupHost,
  opts: PlacementOptions = {},
): Promise<BackupPreview> {
  const mode = modeOf(opts);
  const b = await loadBackup(file, password, opts.limits ?? BACKUP_LIMITS);
  const m = b.manifest;
  const active = against?.store.active;
  const plan = against ? await planImport(against, b, { ...opts, mode }) : undefined;
  const preview: BackupPreview = {
    file: b.file,
    format_version: m.format_version,
    created_at: m.created_at,
    created_by: m.created_by,
    project_id: m.project_id,
    projects: [...new Set(b.records.map((r) => r.memory.project_id))].sort(),
    counts: { ...m.counts, episodes: b.episodes.length },
    embedding: m.embedding,
    vectors_included: b.records.some((r) => r.vector),
    ...(active ? { store: { model: active.model, dim: active.dim } } : {}),
    // What the import would write, embedded for the collection it would write to (without a store: all of it,
    // for no known collection).
    needs_reembed: plan
      ? reembedNeeded(b, [...plan.toWrite, ...plan.episodes], collectionFor(against!, b))
      : reembedNeeded(b, b.records, undefined),
    conflicts: [],
    mode,
    targets: [],
    refused: [],
    ids_recomputed: 0,
    needs_consent: false,
    confirmations: claimedConfirmations(b.records),
  };
  if (plan) {
    preview.conflicts = plan.conflicts;
    preview.targets = [...plan.targets.values()].sort((x, y) => x.project_id.localeCompare(y.project_id));
    preview.refused = refusals(plan);
    preview.ids_recomputed = plan.idsRecomputed;
    preview.needs_consent = plan.consentNeeded > 0;
  }
  return preview;
}

function refusals(plan: Plan): BackupRefusal[] {
  return [...plan.refused].map(([reason, n]) => ({ reason, ...n }));
}

/** A backup's memory that passed its checks, with the place it would go. */
interface CheckedRecord {
  record: BackupRecord;
  contentId: string;
  redacted: boolean;
  originalId: string;
  /** Why it waits for consent (its project is not one the user works in), if it does. */
  held?: RefusalReason;
}

/**
 * Checks every record and decides where it goes: its project (the new project, or its own when the user
 * works in it or consents), its id (recomputed when the backup's does not match the text and would hit a
 * stored memory), and what happens to a stored memory with the same id.
 */
async function planImport(
  svc: BackupHost,
  backup: LoadedBackup,
  opts: PlacementOptions & { mode: ImportMode },
  check: () => void = () => undefined,
): Promise<Plan> {
  const planner = new ImportPlanner(svc, backup, opts, check);
  const checked = await planner.checkMemories();
  const byId = await planner.assignIds(checked);
  const placed = await planner.compareWithStore(byId);
  planner.notePlaced(checked, byId, placed);
  await planner.planEpisodes();
  return planner.plan;
}

/** The stages of {@link planImport}, sharing the plan they fill. */
class ImportPlanner {
  private readonly now: number;
  private readonly newProject: string | undefined;
  private readonly own: Set<string>;
  private readonly consent: boolean;
  readonly plan: Plan;

  constructor(
    private readonly svc: BackupHost,
    private readonly backup: LoadedBackup,
    private readonly opts: PlacementOptions & { mode: ImportMode },
    private readonly check: () => void,
  ) {
    this.now = (opts.clock ?? (() => new Date()))().getTime();
    const newProject = opts.mode === 'new-project' ? opts.newProjectId!.trim() : undefined;
    const own = new Set(opts.projectIds ?? []);
    const consent = opts.consent === true;
    this.newProject = newProject;
    this.own = own;
    this.consent = consent;
    this.plan = {
      toWrite: [],
      overwrite: new Map(),
      skipped: 0,
      merged: 0,
      idMap: new Map(),
      idsRecomputed: 0,
      episodes: [],
      episodesSkipped: 0,
      refused: new Map(),
      conflicts: [],
      targets: new Map(),
      consentNeeded: 0,
      placed: new Map(),
      allowed: (project) =>
        newProject ? project === newProject : consent || (project !== null && !needsConsent(project, own)),
    };
  }

  private refuse(reason: RefusalReason, kind: 'memories' | 'episodes'): void {
    const r = this.plan.refused.get(reason) ?? { memories: 0, episodes: 0 };
    r[kind]++;
    this.plan.refused.set(reason, r);
  }

  /** The preview's line for a project (created on first use). */
  private target(project: string, held: boolean): BackupTarget {
    let t = this.plan.targets.get(project);
    if (!t) {
      t = {
        project_id: project,
        new: 0,
        conflicts: 0,
        differ: 0,
        overwrite: 0,
        episodes: 0,
        needs_consent: held,
      };
      this.plan.targets.set(project, t);
    }
    return t;
  }

  private placeOf(project: string): { project: string; reason?: RefusalReason } {
    return this.newProject
      ? { project: this.newProject }
      : { project, reason: needsConsent(project, this.own) };
  }

  /** 1. Every memory checked (refused ones counted), placed in its project. */
  async checkMemories(): Promise<CheckedRecord[]> {
    const checked: CheckedRecord[] = [];
    for (const r of this.backup.records) {
      this.check();
      const place = this.placeOf(r.memory.project_id);
      const c = await checkMemory(r, place.project, this.now, this.opts.keepConfirmations === true);
      if ('refused' in c) this.refuse(c.refused, 'memories');
      else checked.push({ ...c, originalId: r.memory.id, held: place.reason });
    }
    return checked;
  }

  /**
   * Each checked memory's id here: the backup's, unless it moves project, was redacted, or does not match
   * its text while a stored memory with other text has it (never let it replace that one). Two texts that
   * normalize the same now share one id: the most recently updated is kept.
   */
  async assignIds(checked: CheckedRecord[]): Promise<Map<string, CheckedRecord>> {
    const { plan } = this;
    const storedByBackupId = await getMany(
      this.svc,
      checked.map((c) => c.originalId),
    );
    const byId = new Map<string, CheckedRecord>();
    for (const c of checked) {
      let id = c.originalId;
      if (this.newProject || c.redacted) id = c.contentId;
      else if (id !== c.contentId && differentText(storedByBackupId.get(id), c.record.memory)) {
        id = c.contentId;
        plan.idsRecomputed++;
      }
      if (id !== c.originalId) plan.idMap.set(c.originalId, id);
      c.record = { ...c.record, memory: { ...c.record.memory, id } };
      const prev = byId.get(id);
      if (prev) plan.merged++;
      if (!prev || prev.record.memory.updated_at < c.record.memory.updated_at) byId.set(id, c);
    }
    return byId;
  }

  /**
   * 2. Compared with the store: new, the same, or different (kept in skip mode, replaced in overwrite mode).
   * A memory marked wrong here never comes back from a backup, under its id in any project it is placed in.
   * Returns the records placed (not refused, not held).
   */
  async compareWithStore(byId: Map<string, CheckedRecord>): Promise<CheckedRecord[]> {
    const { plan, backup } = this;
    const existing = await getMany(this.svc, [...byId.keys()]);
    const original = (c: CheckedRecord) =>
      memoryId(
        backup.records.find((r) => r.memory.id === c.originalId)?.memory.project_id ?? '',
        c.record.memory.text,
      );
    const tombstones = await getMany(this.svc, [...byId.values()].map(original));
    const wrong = (c: CheckedRecord) =>
      existing.get(c.record.memory.id)?.status === 'wrong' || tombstones.get(original(c))?.status === 'wrong';
    const placed: CheckedRecord[] = [];
    for (const c of byId.values()) {
      this.check();
      if (wrong(c) && c.record.memory.status !== 'wrong') {
        this.refuse('marked wrong in this store', 'memories');
        continue;
      }
      const r = c.record;
      const t = this.target(r.memory.project_id, !!c.held);
      const cur = existing.get(r.memory.id);
      const fields = cur ? this.conflict(cur, r, t) : [];
      // A held record is counted where it would go, so the preview shows what consent would let in.
      const held = !!c.held && !this.consent;
      if (c.held) plan.consentNeeded++;
      if (held) this.refuse(c.held!, 'memories');
      else placed.push(c);
      if (!cur) {
        t.new++;
        if (!held) plan.toWrite.push(r);
      } else if (this.opts.mode === 'overwrite' && fields.length > 0) {
        t.overwrite++;
        if (held) continue;
        if (!c.held) plan.consentNeeded++;
        plan.toWrite.push(r);
        plan.overwrite.set(cur.id, cur);
      } else if (!held) plan.skipped++;
    }
    return placed;
  }

  /** A stored memory with the record's id: a conflict of the preview; returns the fields that differ. */
  private conflict(cur: Memory, r: BackupRecord, t: BackupTarget): string[] {
    const fields = differingFields(cur, r.memory);
    this.plan.conflicts.push({
      id: r.memory.id,
      project_id: cur.project_id,
      text: cur.text,
      differs: fields.length > 0,
      fields,
      ...(fields.includes('text') ? { backup_text: r.memory.text } : {}),
    });
    t.conflicts++;
    if (fields.length > 0) t.differ++;
    return fields;
  }

  /** Backup id -> the memory it is imported or kept as, for every record placed. */
  notePlaced(checked: CheckedRecord[], byId: Map<string, CheckedRecord>, placed: CheckedRecord[]): void {
    const finalIds = new Set(placed.map((c) => c.record.memory.id));
    for (const c of checked) {
      const id = this.plan.idMap.get(c.originalId) ?? c.originalId;
      const kept = byId.get(id);
      if (kept && finalIds.has(id)) this.plan.placed.set(c.originalId, kept.record.memory);
    }
  }

  /** 3. Episodes: the same checks and places; their ids always come from their content. */
  async planEpisodes(): Promise<void> {
    const { plan } = this;
    const episodes = await this.checkEpisodes();
    const storedEpisodes = new Set(
      (await this.svc.episodes.get(episodes.map((e) => e.record.episode.id))).map((e) => e.id),
    );
    const seen = new Set<string>();
    for (const e of episodes) {
      const ep = e.record.episode;
      if (seen.has(ep.id) || storedEpisodes.has(ep.id)) {
        plan.episodesSkipped++;
        continue;
      }
      seen.add(ep.id);
      const t = this.target(ep.project_id, !!e.held);
      t.episodes++;
      if (e.held) {
        plan.consentNeeded++;
        if (!this.consent) {
          this.refuse(e.held, 'episodes');
          continue;
        }
      }
      plan.episodes.push(e.record);
    }
  }

  /** The backup's episodes that pass their checks, placed, with their links following their new ids. */
  private async checkEpisodes(): Promise<{ record: EpisodeRecord; held?: RefusalReason }[]> {
    const episodes: { record: EpisodeRecord; held?: RefusalReason }[] = [];
    const keep = this.svc.config.episodes?.keep !== false;
    const placedIds = new Map<string, string>(); // an episode's id in the backup -> its id here
    for (const r of this.backup.episodes) {
      this.check();
      if (!keep) {
        this.refuse('transcripts are off (mnemo.episodes.keep)', 'episodes');
        continue;
      }
      const place = this.placeOf(r.episode.project_id);
      const c = await checkEpisode(r, place.project, this.now, this.opts.keepConfirmations === true);
      if ('refused' in c) this.refuse(c.refused, 'episodes');
      else {
        const e = c.record.episode;
        e.memory_ids = e.memory_ids.map((id) => this.plan.idMap.get(id) ?? id);
        placedIds.set(r.episode.id, e.id);
        episodes.push({ record: c.record, held: place.reason });
      }
    }
    // The links between turns follow their ids (an episode placed in another project has another id); a link
    // to a turn not in the backup is dropped, and recall finds that neighbour by time (recall/context.ts).
    for (const { record } of episodes)
      for (const k of ['previous_id', 'next_id'] as const) {
        const to = record.episode[k] ? placedIds.get(record.episode[k]) : record.episode[k];
        if (to === undefined) delete record.episode[k];
        else record.episode[k] = to;
      }
    return episodes;
  }
}

/** Restores a backup into the store, all or nothing. */
export async function importBackup(
  svc: BackupHost,
  file: string,
  password: string,
  opts: ImportOptions,
): Promise<ImportResult> {
  if (!opts) throw new InvalidInputError(`The import mode must be one of ${IMPORT_MODES.join(', ')}.`);
  const mode = modeOf(opts);
  const newProject = opts.newProjectId?.trim();
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
  const backup = await loadBackup(file, password, opts.limits ?? BACKUP_LIMITS);
  check();
  if (mode === 'new-project') {
    const existing = await svc.store.find(buildWhere({ project_id: newProject }));
    if (existing.length > 0) {
      throw new BackupError(
        'conflict',
        `Project ${newProject} already has ${existing.length} memories; import into a new project id, or use skip or overwrite.`,
      );
    }
  }

  // 2. Plan: where each record goes, what is new, what replaces an existing memory, what stays.
  progress({ message: 'Checking every record against the store', percent: 10 });
  const plan = await planImport(svc, backup, { ...opts, mode }, check);
  const { toWrite, overwrite, skipped, merged } = plan;
  if (mode === 'overwrite' && overwrite.size > 0 && !opts.consent) {
    throw new BackupError(
      'needs-consent',
      `Overwriting would replace ${overwrite.size} stored ${overwrite.size === 1 ? 'memory' : 'memories'} with the backup's version, so nothing was changed: look at the preview and confirm it to go ahead.`,
    );
  }

  // 3. Vectors: the backup's when they fit the store's collection, else re-embedded with the store's model.
  const { active: target, reembedded } = await vectorsFor(svc, backup, plan, check, progress);
  const { episodes } = plan;

  // 4. Snapshot what will be overwritten, with vectors, so a failure can put it back.
  const snapshot = await snapshotOf(svc, overwrite);

  // 5. The audit entries to append once everything is written.
  const now = clock().toISOString();
  const auditOut = importAuditEntries(svc, backup, plan, mode, now);

  // 6. Write, rolling back on any failure or cancellation.
  const replaced = await writePlan(svc, plan, {
    target,
    snapshot,
    auditOut,
    batchSize,
    check,
    progress,
    name,
  });
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
    mode,
    inserted: toWrite.length - replaced.length,
    overwritten: replaced.length,
    skipped,
    reembedded,
    audit_entries: auditOut.length,
    merged,
    projects,
    ids: toWrite.map((r) => r.memory.id),
    episodes: episodes.length,
    ids_recomputed: plan.idsRecomputed,
    refused: refusals(plan),
  };
}

type Progress = (p: { message: string; percent?: number }) => void;

/**
 * The vectors of what the plan writes: the backup's when they fit the store's collection, else re-embedded
 * with the store's model (loaded for it). Returns the collection written to and how many were re-embedded.
 */
async function vectorsFor(
  svc: BackupHost,
  backup: LoadedBackup,
  plan: Plan,
  check: () => void,
  progress: Progress,
): Promise<{ active: BackupHost['store']['active']; reembedded: number }> {
  const { toWrite, episodes } = plan;
  let active = svc.store.active;
  if (!reembedNeeded(backup, [...toWrite, ...episodes], active)) return { active, reembedded: 0 };
  progress({ message: 'Loading the embedding model', percent: 15 });
  await svc.requireModel();
  active = svc.store.active;
  if (!active) throw new MnemoError('The memory store has no collection after loading the model.');
  const usable = (v?: number[]): boolean => !!v && vectorsUsable(backup, active!);
  const need = toWrite.filter((r) => !usable(r.vector));
  const needEp = episodes.filter((e) => !usable(e.vector));
  const all = need.length + needEp.length;
  let reembedded = 0;
  for (let i = 0; i < need.length; i += REEMBED_WINDOW) {
    check();
    const batch = need.slice(i, i + REEMBED_WINDOW);
    const vectors = await svc.embedding.embed(
      batch.map((r) => r.memory.text),
      { bulk: true },
    );
    batch.forEach((r, j) => {
      r.vector = vectors[j];
      r.memory.embedding_model = active!.model;
      r.memory.embedding_dim = vectors[j].length;
    });
    reembedded += batch.length;
    progress({
      message: `Re-embedding (${reembedded}/${all})`,
      percent: Math.round(15 + (35 * reembedded) / all),
    });
  }
  for (let i = 0; i < needEp.length; i += REEMBED_WINDOW) {
    check();
    const batch = needEp.slice(i, i + REEMBED_WINDOW);
    const vectors = await svc.embedding.embed(
      batch.map((e) => episodeVectorText(e.episode)),
      { bulk: true },
    );
    batch.forEach((e, j) => (e.vector = vectors[j]));
    progress({
      message: `Re-embedding (${need.length + i + batch.length}/${all})`,
      percent: Math.round(15 + (35 * (need.length + i + batch.length)) / all),
    });
  }
  return { active, reembedded };
}

/** The memories an overwrite replaces, with their stored vectors (exactly as stored), so a failure can put them back. */
async function snapshotOf(
  svc: BackupHost,
  overwrite: Map<string, Memory>,
): Promise<Map<string, { memory: Memory; vector: number[] }>> {
  const snapshot = new Map<string, { memory: Memory; vector: number[] }>();
  if (overwrite.size === 0) return snapshot;
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
  return snapshot;
}

/**
 * Writes the plan's memories and episodes in batches, then its audit entries; on any failure or cancellation
 * undoes what was written (inserted ones deleted, replaced ones restored from the snapshot) and says so.
 * Returns the ids of the memories replaced.
 */
async function writePlan(
  svc: BackupHost,
  plan: Plan,
  w: {
    target: BackupHost['store']['active'];
    snapshot: Map<string, { memory: Memory; vector: number[] }>;
    auditOut: AuditEntry[];
    batchSize: number;
    check: () => void;
    progress: Progress;
    name: string;
  },
): Promise<string[]> {
  const { toWrite, overwrite, episodes } = plan;
  const { target, batchSize, check, progress } = w;
  const inserted: string[] = [];
  const replaced: string[] = [];
  const insertedEpisodes: string[] = [];
  try {
    for (let i = 0; i < toWrite.length; i += batchSize) {
      check();
      const batch = toWrite.slice(i, i + batchSize);
      for (const r of batch) (overwrite.has(r.memory.id) ? replaced : inserted).push(r.memory.id);
      // An overwritten memory's old text leaves Chroma's log at the next compaction.
      svc.store.noteErased(batch.filter((r) => overwrite.has(r.memory.id)).map((r) => r.memory.id));
      await svc.store.upsert(
        batch.map((r) => ({ memory: r.memory, vector: r.vector! })),
        target,
      );
      progress({
        message: `Writing memories (${Math.min(i + batchSize, toWrite.length)}/${toWrite.length})`,
        percent: Math.round(50 + (40 * (i + batch.length)) / toWrite.length),
      });
    }
    for (let i = 0; i < episodes.length; i += 256) {
      check();
      const batch = episodes.slice(i, i + 256);
      insertedEpisodes.push(...batch.map((e) => e.episode.id));
      await svc.episodes.upsert(batch.map((e) => ({ episode: e.episode, vector: e.vector! })));
      progress({
        message: `Writing episodes (${Math.min(i + 256, episodes.length)}/${episodes.length})`,
        percent: Math.round(90 + (5 * (i + batch.length)) / episodes.length),
      });
    }
    check();
    svc.audit.append(w.auditOut);
    return replaced;
  } catch (e) {
    progress({ message: 'Rolling back' });
    try {
      if (insertedEpisodes.length) await svc.episodes.delete(insertedEpisodes);
      for (let i = 0; i < inserted.length; i += 500)
        await svc.store.delete(inserted.slice(i, i + 500), target);
      const restore = replaced.map((id) => w.snapshot.get(id)!);
      for (let i = 0; i < restore.length; i += batchSize)
        await svc.store.upsert(restore.slice(i, i + batchSize), target);
    } catch (undoError) {
      throw new MnemoError(
        `The import of ${w.name} failed (${errorMessage(e).replace(/\.$/, '')}) and undoing it also failed (${errorMessage(undoError).replace(/\.$/, '')}); restore the store from a backup.`,
        { cause: e },
      );
    }
    if (e instanceof CancelledError) throw e;
    if (e instanceof BackupError) throw e;
    throw new BackupError(
      'rolled-back',
      `The import of ${w.name} failed and was undone, so nothing was changed: ${errorMessage(e)}`,
      {
        cause: e,
        code: e instanceof MnemoError ? e.code : undefined,
      },
    );
  }
}

/** A stored memory whose text is not the record's (an edited memory keeps its id; its text is what counts). */
function differentText(stored: Memory | undefined, record: Memory): boolean {
  return !!stored && normalizeText(stored.text) !== normalizeText(record.text);
}

/** The backup's vectors fit the collection: same model and dimension. */
function vectorsUsable(b: LoadedBackup, active: Pick<ActiveCollection, 'model' | 'dim'>): boolean {
  return b.manifest.embedding.model === active.model && b.manifest.embedding.dim === active.dim;
}

/**
 * Whether writing `written` (records and turns) into the collection `target` embeds texts again: one
 * without a vector, or the backup's vectors of another model; with no target known, whenever any is written.
 */
function reembedNeeded(
  b: LoadedBackup,
  written: Array<{ vector?: number[] }>,
  target: Pick<ActiveCollection, 'model' | 'dim'> | undefined,
): boolean {
  if (written.length === 0) return false;
  return !target || !vectorsUsable(b, target) || written.some((r) => !r.vector);
}

/**
 * The collection an import would write to, before the model is loaded: the store's active one when it is
 * of the configured model (the import loads that model first), else the configured model's. Its dimension
 * is known once the model is ready; until then a backup of the same model id has the same dimension.
 */
function collectionFor(svc: BackupHost, b: LoadedBackup): Pick<ActiveCollection, 'model' | 'dim'> {
  const model = svc.embedding.modelId;
  const active = svc.store.active;
  if (active?.model === model) return active;
  let dim: number;
  try {
    dim = svc.embedding.dimension();
  } catch {
    dim = (b.manifest.embedding.model === model ? b.manifest.embedding.dim : null) ?? 0; // 0: not the backup's
  }
  return { model, dim };
}

async function getMany(svc: BackupHost, ids: string[]): Promise<Map<string, Memory>> {
  const out = new Map<string, Memory>();
  for (let i = 0; i < ids.length; i += 500)
    for (const m of await svc.store.get(ids.slice(i, i + 500))) out.set(m.id, m);
  return out;
}

/**
 * The backup's own entries (marked `imported_from`, minus those already in the log) of the memories placed
 * (under the ids and projects they were imported to) and of the projects the import may write to, followed
 * by one `import` entry per memory written. History of a refused memory, of global or of another project
 * without consent is not brought in.
 */
function importAuditEntries(
  svc: BackupHost,
  backup: LoadedBackup,
  plan: Plan,
  mode: ImportMode,
  now: string,
): ImportedAuditEntry[] {
  const from = basename(backup.file);
  const known = new Set(svc.audit.readAll().map((e) => auditKey(e)));
  const out: ImportedAuditEntry[] = [];
  const backupIds = new Set(backup.records.map((r) => r.memory.id));
  for (const e of backup.audit) {
    let entry: ImportedAuditEntry = { ...e };
    delete entry.imported_from;
    if (entry.memory_id && backupIds.has(entry.memory_id)) {
      const m = plan.placed.get(entry.memory_id);
      if (!m) continue; // a refused memory's history stays out with it
      entry = { ...entry, memory_id: m.id, ...(mode === 'new-project' ? { project_id: m.project_id } : {}) };
    } else if (mode === 'new-project') {
      continue; // history of memories that are not in the backup has no place in the new project
    } else if (!plan.allowed(entry.project_id ?? null)) continue;
    const key = auditKey(entry);
    if (known.has(key)) continue;
    known.add(key);
    out.push({ ...entry, imported_from: from });
  }
  const reverse = new Map([...plan.idMap].map(([a, b]) => [b, a]));
  const originalProject = new Map(backup.records.map((r) => [r.memory.id, r.memory.project_id]));
  for (const r of plan.toWrite) {
    const before = plan.overwrite.get(r.memory.id);
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
