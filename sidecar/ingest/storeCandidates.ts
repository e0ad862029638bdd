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
import { GLOBAL_PROJECT, type Memory } from '../model';
import type { AuditEntry } from '../protocol';
import type { Candidate, SessionInput } from '../pipeline/types';
import type { IngestDecision } from '../protocol';
import { type Neighbour } from '../store/memoryStore';
import { currentNeighbours, latestVersions, NEIGHBOURS_ASKED } from './neighbours';
import { buildWhere } from '../store/where';
import { failpoint } from '../util/failpoint';
import {
  candidateIds,
  planAudit,
  planStore,
  type StoreContext,
  type StoreLookup,
  type StorePlan,
} from './storePlan';

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
  return core.store.exclusiveWrite(() =>
    decideAndStore(core, session, cands, vectors, confirmedBy, captureId),
  );
}

/** Looks up, plans (ingest/storePlan.ts, pure), then applies the plan: the three stages of the store. */
async function decideAndStore(
  core: Core,
  session: SessionInput,
  cands: Candidate[],
  vectors: number[][],
  confirmedBy: string | undefined,
  captureId: string | undefined,
): Promise<IngestDecision[]> {
  const { config } = core;
  const limit = config.pipeline.dedupDistance;
  const found = await lookUp(core, session.project_id, cands, vectors, limit);
  const ctx: StoreContext = {
    session,
    by: session.added_by ?? config.user,
    now: core.now(),
    limit,
    embeddingModel: core.embedding.modelId,
    confirmedBy,
    captureId,
  };
  const plan = planStore(cands, vectors, found, ctx);
  await applyPlan(core, plan, ctx);
  return plan.decisions;
}

/**
 * The store reads the plan needs: the stored memories with the candidates' ids, and the nearest stored
 * neighbour under `limit` of each other candidate in its project and category, then among global memories:
 * one query per category and scope, the categories of a scope at once.
 */
async function lookUp(
  core: Core,
  project: string,
  cands: Candidate[],
  vectors: number[][],
  limit: number,
): Promise<StoreLookup> {
  const { store } = core;
  const ids = candidateIds(project, cands);
  const byId = new Map((await store.get([...new Set(ids)])).map((m) => [m.id, m]));
  // A candidate with the text of an older value: the value now in use, for the plan to replace it.
  const older = [...byId.values()].filter((m) => m.status === 'superseded');
  const latest = older.length ? await latestVersions(older, (x) => store.get(x)) : [];
  const current = new Map(older.flatMap((m, i) => (latest[i] ? [[m.id, latest[i]!] as const] : [])));
  const nearest = new Map<number, Neighbour>();
  for (const scope of [project, GLOBAL_PROJECT]) {
    const groups = [...new Set(cands.map((c) => c.category))]
      .map((category) => ({
        category,
        idx: cands
          .map((_c, i) => i)
          .filter((i) => cands[i].category === category && !byId.has(ids[i]) && !nearest.has(i)),
      }))
      .filter((g) => g.idx.length > 0);
    const hits = await Promise.all(
      groups.map(async (g) =>
        currentNeighbours(
          await store.queryMany(
            g.idx.map((i) => vectors[i]),
            buildWhere({ project_id: scope, category: g.category }),
            NEIGHBOURS_ASKED,
          ),
          limit,
          (ids) => store.get(ids),
        ),
      ),
    );
    groups.forEach((g, k) =>
      g.idx.forEach((i, j) => {
        const h = hits[k]![j];
        if (h && h.distance < limit) nearest.set(i, h);
      }),
    );
  }
  return { byId, nearest, current };
}

/**
 * Writes the plan, in this order: the new memories, the refreshed ones, the superseded ones, what an earlier
 * attempt of the capture left undone, the contested ones; then the audit entries.
 */
async function applyPlan(core: Core, plan: StorePlan, ctx: StoreContext): Promise<void> {
  const { store } = core;
  const { captureId, now, by } = ctx;
  const { created, refreshed, superseded, contested, revived, replayed } = plan;
  await store.upsert(created);
  // Only the fields this stage changes: a use count written meanwhile by a recall is not overwritten.
  await store.updateFields(
    [...refreshed.values()].map((r) => r.after).filter((m) => !superseded.has(m.id) && !revived.has(m.id)),
    ['times_seen', 'last_seen_at', 'source_ref', 'updated_at', 'captures'],
  );
  await store.updateFields(
    [...superseded.values()].map((r) => r.after),
    ['status', 'superseded_by', 'updated_at', 'times_seen', 'last_seen_at', 'source_ref', 'captures'],
  );
  await store.updateFields(
    [...revived.values()].map((r) => r.after),
    [
      'status',
      'superseded_by',
      'supersedes',
      'updated_at',
      'times_seen',
      'last_seen_at',
      'source_ref',
      'captures',
    ],
  );
  const repaired = replayed.size ? await repairReplay(core, [...replayed.values()], captureId!, now, by) : [];
  await store.updateFields(
    [...contested.values()].map((r) => r.after),
    ['contested_by', 'updated_at'],
  );
  failpoint('store-written');
  const stamp = (e: AuditEntry): AuditEntry => (captureId ? { ...e, capture_id: captureId } : e);
  core.audit.append([...repaired, ...planAudit(plan, ctx)].map(stamp));
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
