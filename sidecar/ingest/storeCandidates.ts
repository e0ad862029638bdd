/**
 * The dedup and store stages for a session's candidates, batched, in three stages: look up (one read of the
 * candidates' ids, one nearest-neighbour query per category, project then global), plan (ingest/storePlan.ts,
 * pure: candidates are decided in order, so a candidate that repeats an earlier one of the same session
 * refreshes it instead of adding a second memory), apply (one write of the new memories, one of the
 * refreshed ones, …, then the audit entries).
 *
 * Replay: a queued capture is processed again when the process died before marking it done. Every
 * memory it writes carries its queue id (`captures`) and every audit entry its `capture_id`, so a second
 * attempt counts nothing twice (no `times_seen` inflated) and writes the audit entries the first attempt
 * did not get to (no memory without its `create` entry), then the supersede links it left unwritten.
 */
import type { Core } from '../core';
import { snapshot } from '../lifecycle/auditChanges';
import { GLOBAL_PROJECT, type Category, type Memory } from '../model';
import type { AuditEntry } from '../protocol';
import type { Candidate, SessionInput } from '../pipeline/types';
import type { IngestDecision } from '../protocol';
import { type Neighbour } from '../store/memoryStore';
import { currentNeighbours, latestVersions, NEIGHBOURS_ASKED } from './neighbours';
import { buildWhere } from '../store/where';
import { failpoint } from '../util/failpoint';
import {
  candidateIds,
  CHANGED_FIELDS,
  planAudit,
  planStore,
  type ChangeKind,
  type StoreContext,
  type StoreLookup,
  type StorePlan,
} from './storePlan';
import { GroupOverlay } from './groupOverlay';

/** A session's candidates with their vectors, to decide and store (one capture of a group). */
export interface SessionCandidates {
  session: SessionInput;
  cands: Candidate[];
  vectors: number[][];
  /** The queued capture they come from, when they do. */
  captureId?: string;
}

/**
 * Decides and stores a session's candidates; alone on the data folder (`exclusiveWrite`), so two
 * processes learning the same fact at once store it once.
 */
export function storeCandidates(
  core: Core,
  session: SessionInput,
  cands: Candidate[],
  vectors: number[][],
  confirmedBy?: string,
  captureId?: string,
): Promise<IngestDecision[]> {
  return core.store.exclusiveWrite(async () => {
    const [decisions] = await decideAndStore(core, [{ session, cands, vectors, captureId }], confirmedBy);
    return decisions!;
  });
}

/**
 * Decides and stores the candidates of several sessions (a backlog's queued captures, in the queue's order)
 * as if one after the other, in one round of reads and one of writes under one write lock: each session's
 * candidates are decided against what the sessions before it decided (ingest/groupOverlay.ts). One list of
 * decisions per session.
 */
export function storeGroup(core: Core, items: SessionCandidates[]): Promise<IngestDecision[][]> {
  return core.store.exclusiveWrite(() => decideAndStore(core, items, undefined));
}

/** Looks up, plans (ingest/storePlan.ts, pure), then applies the plans: the three stages of the store. */
async function decideAndStore(
  core: Core,
  items: SessionCandidates[],
  confirmedBy: string | undefined,
): Promise<IngestDecision[][]> {
  const { config } = core;
  const limit = config.pipeline.dedupDistance;
  const found = await lookUp(core, items, limit);
  const now = core.now();
  const overlay = new GroupOverlay();
  const planned = items.map((it, k) => {
    const ctx: StoreContext = {
      session: it.session,
      by: it.session.added_by ?? config.user,
      now,
      limit,
      embeddingModel: core.embedding.modelId,
      confirmedBy,
      captureId: it.captureId,
    };
    const seen = overlay.lookup(found[k]!, it.session.project_id, it.cands, it.vectors, limit);
    const plan = planStore(it.cands, it.vectors, seen, ctx);
    overlay.absorb(plan);
    return { plan, ctx };
  });
  await applyPlans(core, planned, overlay);
  return planned.map((p) => p.plan.decisions);
}

/**
 * The store reads the plans need, for all the sessions at once: the stored memories with the candidates'
 * ids, and the nearest stored neighbour under `limit` of each other candidate in its project and category,
 * then among global memories: one query per category and scope, the candidates of all sessions at once.
 */
async function lookUp(core: Core, items: SessionCandidates[], limit: number): Promise<StoreLookup[]> {
  const { store } = core;
  const ids = items.map((it) => candidateIds(it.session.project_id, it.cands));
  const byId = new Map((await store.get([...new Set(ids.flat())])).map((m) => [m.id, m]));
  // A candidate with the text of an older value: the value now in use, for the plan to replace it.
  const older = [...byId.values()].filter((m) => m.status === 'superseded');
  const latest = older.length ? await latestVersions(older, (x) => store.get(x)) : [];
  const current = new Map(older.flatMap((m, i) => (latest[i] ? [[m.id, latest[i]!] as const] : [])));
  const nearest = items.map(() => new Map<number, Neighbour>());
  for (const global of [false, true]) {
    const groups = new Map<string, { scope: string; category: Category; at: [number, number][] }>();
    items.forEach((it, k) =>
      it.cands.forEach((c, i) => {
        if (byId.has(ids[k]![i]!) || nearest[k]!.has(i)) return;
        const scope = global ? GLOBAL_PROJECT : it.session.project_id;
        const key = `${scope}\u0000${c.category}`;
        if (!groups.has(key)) groups.set(key, { scope, category: c.category, at: [] });
        groups.get(key)!.at.push([k, i]);
      }),
    );
    const list = [...groups.values()];
    const hits = await Promise.all(
      list.map(async (g) =>
        currentNeighbours(
          await store.queryMany(
            g.at.map(([k, i]) => items[k]!.vectors[i]!),
            buildWhere({ project_id: g.scope, category: g.category }),
            NEIGHBOURS_ASKED,
          ),
          limit,
          (x) => store.get(x),
        ),
      ),
    );
    list.forEach((g, n) =>
      g.at.forEach(([k, i], j) => {
        const h = hits[n]![j];
        if (h && h.distance < limit) nearest[k]!.set(i, h);
      }),
    );
  }
  return nearest.map((n) => ({ byId, nearest: n, current }));
}

/**
 * Writes the plans, in this order: the new memories (in their final version), then the stored memories each
 * kind of change touches (refreshed, superseded, revived; what an earlier attempt of a capture left undone;
 * contested), each kind in one write of the fields it changes; then the audit entries, each with its capture.
 */
async function applyPlans(
  core: Core,
  planned: { plan: StorePlan; ctx: StoreContext }[],
  overlay: GroupOverlay,
): Promise<void> {
  const { store } = core;
  const created = new Map(
    planned.flatMap(({ plan }) =>
      plan.created.map(
        (r) => [r.memory.id, { memory: overlay.version(r.memory), vector: r.vector }] as const,
      ),
    ),
  );
  await store.upsert([...created.values()]);
  const touched = (kinds: readonly ChangeKind[]): Set<string> =>
    new Set(planned.flatMap(({ plan }) => kinds.flatMap((kind) => [...plan[kind].keys()])));
  const write = (kind: ChangeKind, except: Set<string> = new Set()): Promise<void> =>
    store.updateFields(
      [...touched([kind])].filter((id) => !created.has(id) && !except.has(id)).map((id) => overlay.get(id)!),
      CHANGED_FIELDS[kind],
    );
  // A superseded or revived memory's write holds a refreshed one's fields.
  await write('refreshed', touched(['superseded', 'revived']));
  await write('superseded');
  await write('revived');
  const audit: AuditEntry[] = [];
  for (const { plan, ctx } of planned) {
    const { captureId, now, by } = ctx;
    const repaired = plan.replayed.size
      ? await repairReplay(core, [...plan.replayed.values()], captureId!, now, by)
      : [];
    const stamp = (e: AuditEntry): AuditEntry => (captureId ? { ...e, capture_id: captureId } : e);
    audit.push(...[...repaired, ...planAudit(plan, ctx)].map(stamp));
  }
  await write('contested');
  failpoint('store-written');
  core.audit.append(audit);
}

/**
 * What an earlier attempt of this capture left undone for the memories it wrote: the audit entries it
 * did not append (create, or refresh) and the supersede of the older memory a new one changes. Reads the
 * audit log only on a replay.
 */
async function repairReplay(
  core: Core,
  memories: Memory[],
  captureId: string,
  now: string,
  by: string,
): Promise<AuditEntry[]> {
  const logged = new Set(
    core.audit
      .readAll()
      .filter((e) => e.capture_id === captureId)
      .map((e) => `${e.action} ${e.memory_id}`),
  );
  const out: AuditEntry[] = [];
  const base = { at: now, by, capture_id: captureId };
  for (const m of memories) {
    // Created by that attempt: first and last seen in it; else it refreshed an older memory.
    const createdThen = m.created_at === m.last_seen_at;
    if (createdThen && !logged.has(`create ${m.id}`))
      out.push({
        ...base,
        action: 'create',
        memory_id: m.id,
        project_id: m.project_id,
        changes: snapshot(m),
      });
    if (!createdThen && !logged.has(`refresh ${m.id}`))
      out.push({
        ...base,
        action: 'refresh',
        memory_id: m.id,
        project_id: m.project_id,
        changes: { times_seen: [m.times_seen - 1, m.times_seen], last_seen_at: [undefined, m.last_seen_at] },
        note: 'seen again (entry written when the capture was replayed after a crash)',
      });
  }
  const older = await core.store.get(memories.filter((m) => m.supersedes).map((m) => m.supersedes!));
  const undone = older.filter((o) => o.status !== 'superseded');
  const byOld = new Map(memories.filter((m) => m.supersedes).map((m) => [m.supersedes!, m.id]));
  const after = undone.map((o) => ({
    ...o,
    status: 'superseded' as const,
    superseded_by: byOld.get(o.id)!,
    updated_at: now,
  }));
  await core.store.updateMetadata(after);
  for (const [i, o] of undone.entries())
    out.push({
      ...base,
      action: 'update',
      memory_id: o.id,
      project_id: o.project_id,
      changes: { status: [o.status, 'superseded'], superseded_by: [undefined, after[i]!.superseded_by] },
      note: `superseded by ${after[i]!.superseded_by}: a newer value of the same fact`,
    });
  return out;
}
