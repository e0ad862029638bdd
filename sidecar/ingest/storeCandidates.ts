/**
 * The dedup and store stages for a session's candidates, batched: one read of the candidates' ids, one
 * nearest-neighbour query per category (project, then global), then one write of the new memories and
 * one of the refreshed ones. Candidates are decided in order (ingest/dedup.ts), so a candidate that
 * repeats an earlier one of the same session refreshes it instead of adding a second memory.
 *
 * Replay: a queued capture is processed again when the process died before marking it done. Every
 * memory it writes carries its queue id (`captures`) and every audit entry its `capture_id`, so a second
 * attempt counts nothing twice (no `times_seen` inflated) and writes the audit entries the first attempt
 * did not get to (no memory without its `create` entry), then the supersede links it left unwritten.
 */
import type { Core } from '../core';
import { snapshot } from '../lifecycle/auditChanges';
import { capturesOf, GLOBAL_PROJECT, memoryId, tierOf, withCapture, type Memory, type Tier } from '../model';
import type { AuditEntry } from '../protocol';
import type { Candidate, SessionInput } from '../pipeline/types';
import type { IngestDecision } from '../protocol';
import { type Neighbour } from '../store/memoryStore';
import { buildWhere } from '../store/where';
import { round } from '../util/numbers';
import { failpoint } from '../util/failpoint';
import { decideDedup } from './dedup';

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

async function decideAndStore(
  core: Core,
  session: SessionInput,
  cands: Candidate[],
  vectors: number[][],
  confirmedBy: string | undefined,
  captureId: string | undefined,
): Promise<IngestDecision[]> {
  const { store, config } = core;
  const project = session.project_id;
  const by = session.added_by ?? config.user;
  const limit = config.pipeline.dedupDistance;
  const ids = cands.map((c) => memoryId(project, c.text));
  const byId = new Map((await store.get([...new Set(ids)])).map((m) => [m.id, m]));
  // Nearest stored neighbour of each candidate in its project and category, then among global memories:
  // one query per category and scope, the categories of a scope at once.
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
      groups.map((g) =>
        store.queryMany(
          g.idx.map((i) => vectors[i]),
          buildWhere({ project_id: scope, category: g.category }),
          1,
        ),
      ),
    );
    groups.forEach((g, k) =>
      g.idx.forEach((i, j) => {
        const h = hits[k]![j]?.[0];
        if (h && h.distance < limit) nearest.set(i, h);
      }),
    );
  }
  const now = core.now();
  const created: { memory: Memory; vector: number[] }[] = [];
  const refreshed = new Map<string, { before: Memory; after: Memory; note: string }>();
  const decisions: IngestDecision[] = [];
  const superseded = new Map<string, { before: Memory; after: Memory }>();
  /** Older memories a pending candidate may change (dedup unsure): both go to review. */
  const contested = new Map<string, { before: Memory; after: Memory }>();
  /** Stored memories an earlier attempt of this capture already wrote: nothing is counted again. */
  const replayed = new Map<string, Memory>();
  const writtenBefore = (m: Memory | undefined): m is Memory =>
    !!captureId && !!m && !refreshed.has(m.id) && capturesOf(m).includes(captureId);
  cands.forEach((c, i) => {
    const base = {
      text: c.text,
      category: c.category,
      is_actionable: c.is_actionable,
      source_ref: c.source_ref,
      score: c.score,
    };
    // What this candidate repeats, each in its latest version: the same text stored, a near neighbour, or one created earlier in this batch.
    const stored = refreshed.get(ids[i])?.after ?? byId.get(ids[i]);
    const n = nearest.get(i);
    const again = writtenBefore(stored) ? stored : writtenBefore(n?.memory) ? n.memory : undefined;
    if (again) {
      replayed.set(again.id, replayed.get(again.id) ?? again);
      decisions.push({
        ...base,
        id: again.id,
        outcome: again.status === 'pending' ? 'pending' : again.id === ids[i] ? 'stored' : 'refreshed',
        reason: `${c.reason}; written by an earlier attempt of this capture`,
      });
      return;
    }
    const decision = decideDedup(
      { id: ids[i], text: c.text, category: c.category, project_id: project, vector: vectors[i] },
      {
        sameId: stored,
        neighbour: n && { memory: refreshed.get(n.memory.id)?.after ?? n.memory, distance: n.distance },
        earlier: created,
      },
      limit,
    );
    if (decision.kind === 'blocked') {
      decisions.push({
        ...base,
        id: decision.of.id,
        outcome: 'dropped',
        reason: `blocked: matches ${decision.of.id}, which was marked wrong`,
      });
      return;
    }
    if (decision.kind === 'duplicate') {
      const { of: existing, distance } = decision;
      // A global memory is seen again in a project: the project's file paths and messages are not its provenance.
      const refs =
        existing.project_id === project
          ? [...new Set([...existing.source_ref, ...c.source_ref])].slice(-50)
          : existing.source_ref;
      const after: Memory = {
        ...existing,
        last_seen_at: now,
        times_seen: existing.times_seen + 1,
        source_ref: refs,
        updated_at: now,
        captures: withCapture(existing, captureId),
      };
      const fresh = created.find((r) => r.memory.id === existing.id);
      if (fresh)
        fresh.memory = after; // repeated within this session: still one new memory
      else
        refreshed.set(existing.id, {
          before: refreshed.get(existing.id)?.before ?? existing,
          after,
          note: distance > 0 ? `duplicate at cosine distance ${distance.toFixed(3)}` : 'same text seen again',
        });
      decisions.push({
        ...base,
        id: existing.id,
        outcome: 'refreshed',
        reason: `duplicate of ${existing.id}${distance > 0 ? ` (cosine distance ${distance.toFixed(3)} < ${limit})` : ' (same text)'}`,
      });
      return;
    }
    // A changed fact supersedes the memory it changes; a possible one waits for review beside it. An
    // unconfirmed write never demotes what a person vouched for (issue 39): a pending candidate, or one
    // changing a confirmed or global memory, records the conflict and waits for a person instead.
    const tier: Tier = confirmedBy && !c.pending ? 'person' : (c.tier ?? 'own-turn');
    const change = decision.kind === 'update' || decision.kind === 'unsure' ? decision : undefined;
    const waits =
      change?.kind === 'unsure' ||
      (change !== undefined && !confirmedBy && (c.pending || vouched(change.of)));
    const supersedes = change && !waits ? change.of : undefined;
    const unsure = change && waits ? change : undefined;
    const pending = c.pending || !!unsure;
    const reason = [
      c.reason,
      unsure && `pending: may change ${unsure.of.id} (${unsure.reason})`,
      supersedes && `supersedes ${supersedes.id} (${change!.reason})`,
      c.pending && c.pending_reason && !unsure && `pending: ${c.pending_reason}`,
      c.held && unsure && c.held,
    ]
      .filter(Boolean)
      .join('; ');
    const memory: Memory = {
      id: ids[i],
      text: c.text,
      category: c.category,
      source_type: c.source_type ?? session.source_type,
      project_id: project,
      confidence_score: round(c.confidence),
      is_actionable: c.is_actionable,
      source_ref: [...new Set([...c.source_ref, ...(session.source_ref ?? [])])],
      status: pending ? 'pending' : confirmedBy ? 'confirmed' : 'active',
      ...(confirmedBy && !pending ? { confirmed_by: confirmedBy } : {}),
      ...(supersedes ? { supersedes: supersedes.id } : {}),
      ...(unsure ? { may_change: unsure.of.id } : {}),
      created_at: now,
      updated_at: now,
      last_seen_at: now,
      times_seen: 1,
      added_by: by,
      reason,
      score: c.score,
      embedding_model: core.embedding.modelId,
      embedding_dim: vectors[i].length,
      use_count: 0,
      ...(c.speaker ? { speaker: c.speaker } : {}),
      ...(c.occurred_at ? { occurred_at: c.occurred_at } : {}),
      ...(c.times?.length ? { times: c.times } : {}),
      ...(captureId ? { captures: captureId } : {}),
      tier,
      ...(c.held ? { held: c.held } : {}),
    };
    created.push({ memory, vector: vectors[i] });
    if (unsure) {
      // When unsure, both go to review; the older stays recalled until someone decides.
      const fresh = created.find((r) => r.memory.id === unsure.of.id);
      if (fresh) fresh.memory = { ...fresh.memory, contested_by: memory.id };
      else {
        const older = refreshed.get(unsure.of.id)?.after ?? unsure.of;
        contested.set(older.id, {
          before: older,
          after: { ...older, contested_by: memory.id, updated_at: now },
        });
      }
    }
    if (supersedes) {
      const older = refreshed.get(supersedes.id)?.after ?? supersedes;
      superseded.set(supersedes.id, {
        before: older,
        after: { ...older, status: 'superseded', superseded_by: memory.id, updated_at: now },
      });
    }
    decisions.push({
      ...base,
      id: memory.id,
      outcome: pending ? 'pending' : 'stored',
      reason: memory.reason,
    });
  });
  await store.upsert(created);
  // Only the fields this stage changes: a use count written meanwhile by a recall is not overwritten.
  await store.updateFields(
    [...refreshed.values()].map((r) => r.after).filter((m) => !superseded.has(m.id)),
    ['times_seen', 'last_seen_at', 'source_ref', 'updated_at', 'captures'],
  );
  await store.updateFields(
    [...superseded.values()].map((r) => r.after),
    ['status', 'superseded_by', 'updated_at', 'times_seen', 'last_seen_at', 'source_ref', 'captures'],
  );
  const repaired = replayed.size ? await repairReplay(core, [...replayed.values()], captureId!, now, by) : [];
  await store.updateFields(
    [...contested.values()].map((r) => r.after),
    ['contested_by', 'updated_at'],
  );
  failpoint('store-written');
  const stamp = (e: AuditEntry): AuditEntry => (captureId ? { ...e, capture_id: captureId } : e);
  core.audit.append(
    [
      ...repaired,
      ...created.map((r) => ({
        at: now,
        action: 'create' as const,
        memory_id: r.memory.id,
        project_id: project,
        by,
        changes: snapshot(r.memory),
      })),
      ...[...refreshed.values()].map((r) => ({
        at: now,
        action: 'refresh' as const,
        memory_id: r.after.id,
        project_id: r.after.project_id,
        by,
        changes: {
          times_seen: [r.before.times_seen, r.after.times_seen] as [unknown, unknown],
          last_seen_at: [r.before.last_seen_at, now] as [unknown, unknown],
        },
        note: r.note,
      })),
      ...[...superseded.values()].map((r) => ({
        at: now,
        action: 'update' as const,
        memory_id: r.after.id,
        project_id: r.after.project_id,
        by,
        changes: {
          status: [r.before.status, 'superseded'] as [unknown, unknown],
          superseded_by: [undefined, r.after.superseded_by] as [unknown, unknown],
        },
        note: `superseded by ${r.after.superseded_by}: a newer value of the same fact`,
      })),
      ...[...contested.values()].map((r) => ({
        at: now,
        action: 'update' as const,
        memory_id: r.after.id,
        project_id: r.after.project_id,
        by,
        changes: { contested_by: [undefined, r.after.contested_by] as [unknown, unknown] },
        note: `in review: ${r.after.contested_by} may change it (both wait for a decision)`,
      })),
    ].map(stamp),
  );
  return decisions;
}

/** A memory an unconfirmed write may not supersede: a person confirmed it, or it was promoted to global. */
function vouched(m: Memory): boolean {
  return m.status === 'confirmed' || m.project_id === GLOBAL_PROJECT || tierOf(m) === 'person';
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
