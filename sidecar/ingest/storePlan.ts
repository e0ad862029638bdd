/**
 * The store plan for a session's candidates, pure: given the candidates and what was looked up (the stored
 * memories with their ids, each candidate's nearest stored neighbour), which memories to create, which
 * stored ones to refresh, supersede or put in review beside a newer one, which an earlier attempt of the
 * capture already wrote, and every candidate's outcome and reason. Candidates are decided in order
 * (ingest/dedup.ts), each against the latest version of what it repeats, so a candidate that repeats an
 * earlier one of the batch refreshes it instead of adding a second memory. No store, no clock, no audit log:
 * storeCandidates.ts looks up, plans, then applies the plan under the data folder's write lock.
 */
import { snapshot } from '../lifecycle/auditChanges';
import { capturesOf, GLOBAL_PROJECT, memoryId, tierOf, withCapture, type Memory, type Tier } from '../model';
import type { Candidate } from '../pipeline/types';
import type { AuditEntry, IngestDecision, SessionInput } from '../protocol';
import type { Neighbour } from '../store/memoryStore';
import { round } from '../util/numbers';
import { decideDedup, type DedupDecision } from './dedup';

/** A stored memory as read and as it is to be written. */
export interface Change {
  before: Memory;
  after: Memory;
}

/** What the look-up stage read from the store for a batch of candidates. */
export interface StoreLookup {
  /** The stored memories with a candidate's id. */
  byId: ReadonlyMap<string, Memory>;
  /**
   * The nearest stored neighbour under the dedup distance of the i-th candidate (not of one stored under its
   * id), in its project and category, else among global memories of its category.
   */
  nearest: ReadonlyMap<number, Neighbour>;
  /** For a stored memory with a candidate's id that a newer one superseded: the memory now in use, by its id. */
  current?: ReadonlyMap<string, Memory>;
}

/** Everything else the plan depends on. */
export interface StoreContext {
  session: Pick<SessionInput, 'project_id' | 'source_type' | 'source_ref'>;
  /** Who adds the memories (the session's `added_by`, else the user). */
  by: string;
  /** The time stamped on every memory written. */
  now: string;
  /** The dedup cosine distance. */
  limit: number;
  /** The embedding model the candidates' vectors come from. */
  embeddingModel: string;
  /** The person who vouches for the candidates (remember), when one does. */
  confirmedBy?: string;
  /** The queued capture being processed, when it is one. */
  captureId?: string;
}

export interface StorePlan {
  /** One per candidate, in order. */
  decisions: IngestDecision[];
  /** New memories, in order, in their final version (with refreshes and contests of later candidates). */
  created: { memory: Memory; vector: number[] }[];
  /** Stored memories seen again: times seen, last seen, source refs and captures change. */
  refreshed: Map<string, Change & { note: string }>;
  /** Stored memories a changed fact supersedes. */
  superseded: Map<string, Change>;
  /** Stored memories a pending candidate may change (dedup unsure): both go to review. */
  contested: Map<string, Change>;
  /** Superseded memories said again: in use again, superseding the value that had replaced them. */
  revived: Map<string, Change & { note: string }>;
  /** Stored memories an earlier attempt of this capture already wrote: nothing is counted again. */
  replayed: Map<string, Memory>;
}

/** The id each candidate is stored under. */
export function candidateIds(project: string, cands: readonly Candidate[]): string[] {
  return cands.map((c) => memoryId(project, c.text));
}

/** Plans the store stage for `cands` (with their `vectors`), given what was looked up. */
export function planStore(
  cands: readonly Candidate[],
  vectors: readonly number[][],
  found: StoreLookup,
  ctx: StoreContext,
): StorePlan {
  const ids = candidateIds(ctx.session.project_id, cands);
  const plan: StorePlan = {
    decisions: [],
    created: [],
    refreshed: new Map(),
    superseded: new Map(),
    contested: new Map(),
    revived: new Map(),
    replayed: new Map(),
  };
  cands.forEach((c, i) => planOne(plan, c, ids[i]!, vectors[i]!, found, found.nearest.get(i), ctx));
  return plan;
}

type Base = Pick<IngestDecision, 'text' | 'category' | 'is_actionable' | 'source_ref' | 'score'>;

function planOne(
  plan: StorePlan,
  c: Candidate,
  id: string,
  vector: number[],
  found: StoreLookup,
  n: Neighbour | undefined,
  ctx: StoreContext,
): void {
  const base: Base = {
    text: c.text,
    category: c.category,
    is_actionable: c.is_actionable,
    source_ref: c.source_ref,
    score: c.score,
  };
  // What this candidate repeats, each in its latest version: the same text stored, a near neighbour, or one created earlier in this batch.
  const kept = found.byId.get(id);
  const stored = kept && latestInPlan(plan, kept);
  // A neighbour this batch already replaced is decided against the value that replaced it.
  let near = n && { memory: latestInPlan(plan, n.memory), distance: n.distance };
  if (near?.memory.status === 'superseded') {
    const now = currentValue(plan, near.memory, found);
    if (now) near = { memory: now, distance: near.distance };
  }
  const writtenBefore = (m: Memory | undefined): m is Memory =>
    !!ctx.captureId && !!m && !plan.refreshed.has(m.id) && capturesOf(m).includes(ctx.captureId);
  const again = writtenBefore(stored) ? stored : writtenBefore(n?.memory) ? n.memory : undefined;
  if (again) {
    plan.replayed.set(again.id, plan.replayed.get(again.id) ?? again);
    plan.decisions.push({
      ...base,
      id: again.id,
      outcome: again.status === 'pending' ? 'pending' : again.id === id ? 'stored' : 'refreshed',
      reason: `${c.reason}; written by an earlier attempt of this capture`,
    });
    return;
  }
  const decision = decideDedup(
    { id, text: c.text, category: c.category, project_id: ctx.session.project_id, vector },
    {
      sameId: stored,
      neighbour: near,
      earlier: plan.created,
    },
    ctx.limit,
  );
  if (decision.kind === 'blocked')
    plan.decisions.push({
      ...base,
      id: decision.of.id,
      outcome: 'dropped',
      reason: `blocked: matches ${decision.of.id}, which was marked wrong`,
    });
  else if (decision.kind === 'duplicate') planDuplicate(plan, c, base, decision, ctx);
  else if (decision.kind === 'restated') planRestated(plan, c, base, decision, found, ctx);
  else planNew(plan, c, base, id, vector, decision, ctx);
}

/** A candidate that repeats a memory refreshes it: stored, or created earlier in the batch. */
function planDuplicate(
  plan: StorePlan,
  c: Candidate,
  base: Base,
  decision: Extract<DedupDecision, { kind: 'duplicate' }>,
  ctx: StoreContext,
): void {
  const { of: existing, distance } = decision;
  const { now, limit } = ctx;
  // A global memory is seen again in a project: the project's file paths and messages are not its provenance.
  const refs =
    existing.project_id === ctx.session.project_id
      ? [...new Set([...existing.source_ref, ...c.source_ref])].slice(-50)
      : existing.source_ref;
  const after: Memory = {
    ...existing,
    last_seen_at: now,
    times_seen: existing.times_seen + 1,
    source_ref: refs,
    updated_at: now,
    captures: withCapture(existing, ctx.captureId),
  };
  const fresh = plan.created.find((r) => r.memory.id === existing.id);
  if (fresh)
    fresh.memory = after; // repeated within this session: still one new memory
  else
    plan.refreshed.set(existing.id, {
      before: plan.refreshed.get(existing.id)?.before ?? existing,
      after,
      note: distance > 0 ? `duplicate at cosine distance ${distance.toFixed(3)}` : 'same text seen again',
    });
  plan.decisions.push({
    ...base,
    id: existing.id,
    outcome: 'refreshed',
    reason: `duplicate of ${existing.id}${distance > 0 ? ` (cosine distance ${distance.toFixed(3)} < ${limit})` : ' (same text)'}`,
  });
}

/**
 * An older value said again after a newer one replaced it: the value in use again. The older memory is revived
 * (seen again, and superseding the value that had replaced it); that value is superseded. An unconfirmed
 * write never demotes what a person vouched for: then, and when the newer value cannot be found, it is only
 * seen again, as before.
 */
function planRestated(
  plan: StorePlan,
  c: Candidate,
  base: Base,
  decision: Extract<DedupDecision, { kind: 'restated' }>,
  found: StoreLookup,
  ctx: StoreContext,
): void {
  const older = decision.of;
  const current = currentValue(plan, older, found);
  // Said before the value now in use was (an older conversation learned late): not said again after it.
  if (!current || saidBefore(c, current, ctx.now) || (!ctx.confirmedBy && (c.pending || vouched(current)))) {
    planDuplicate(plan, c, base, { kind: 'duplicate', of: older, distance: 0, via: 'same-id' }, ctx);
    return;
  }
  const { now } = ctx;
  const before =
    plan.revived.get(older.id)?.before ??
    plan.superseded.get(older.id)?.before ??
    plan.refreshed.get(older.id)?.before ??
    found.byId.get(older.id) ??
    older;
  plan.refreshed.delete(older.id);
  // Superseded earlier in this batch: in the store it never was.
  plan.superseded.delete(older.id);
  const after: Memory = {
    ...older,
    // A person saying it (remember) vouches for it, as for a new memory.
    status: (ctx.confirmedBy && !c.pending) || older.confirmed_by ? 'confirmed' : 'active',
    ...(ctx.confirmedBy && !c.pending ? { confirmed_by: ctx.confirmedBy, tier: 'person' as const } : {}),
    superseded_by: undefined,
    supersedes: current.id,
    last_seen_at: now,
    times_seen: older.times_seen + 1,
    source_ref: [...new Set([...older.source_ref, ...c.source_ref])].slice(-50),
    updated_at: now,
    captures: withCapture(older, ctx.captureId),
  };
  plan.revived.set(older.id, {
    before,
    after,
    note: `said again after ${current.id} replaced it: in use again`,
  });
  const fresh = plan.created.find((r) => r.memory.id === current.id);
  if (fresh) fresh.memory = { ...fresh.memory, status: 'superseded', superseded_by: older.id };
  else
    plan.superseded.set(current.id, {
      before: plan.superseded.get(current.id)?.before ?? current,
      after: { ...current, status: 'superseded', superseded_by: older.id, updated_at: now },
    });
  plan.decisions.push({
    ...base,
    id: older.id,
    outcome: 'refreshed',
    reason: `restates ${older.id}, the value before ${current.id}: in use again (supersedes ${current.id})`,
  });
}

/** A time this far past the moment it is compared at is a clock that is wrong, not a time (ms). */
const CLOCK_SLACK_MS = 5 * 60_000;

/**
 * Whether a candidate was said before a stored memory was, both times known: an older conversation learned
 * after a newer one, which must not undo what the newer one said. A time is known when its message carried
 * one (an undated message has none: attribute.ts) and it is not in the future of when it was learned.
 */
function saidBefore(c: Candidate, m: Memory, now: string): boolean {
  const said = c.occurred_at ? Date.parse(c.occurred_at) : NaN;
  const stored = m.occurred_at ? Date.parse(m.occurred_at) : NaN;
  if (said > Date.parse(now) + CLOCK_SLACK_MS || stored > Date.parse(m.created_at) + CLOCK_SLACK_MS)
    return false;
  return said < stored;
}

/** A stored memory as this batch has changed it so far (revived, superseded or seen again). */
function latestInPlan(plan: StorePlan, m: Memory): Memory {
  return (
    plan.revived.get(m.id)?.after ?? plan.superseded.get(m.id)?.after ?? plan.refreshed.get(m.id)?.after ?? m
  );
}

/** The memory now in use for a fact `older` was a value of: its newer values followed, this batch's first. */
function currentValue(plan: StorePlan, older: Memory, found: StoreLookup): Memory | undefined {
  const byId = (id: string): Memory | undefined =>
    plan.revived.get(id)?.after ??
    plan.superseded.get(id)?.after ??
    plan.refreshed.get(id)?.after ??
    plan.created.find((r) => r.memory.id === id)?.memory ??
    found.byId.get(id) ??
    [...(found.current?.values() ?? [])].find((m) => m.id === id);
  let m: Memory | undefined = older;
  for (let hop = 0; m && m.status === 'superseded' && hop < 16; hop++)
    m = m.superseded_by ? byId(m.superseded_by) : undefined;
  if (m && m.status === 'superseded') return undefined;
  // The store's answer when the chain leaves what this batch knows.
  return m ?? found.current?.get(older.id);
}

/**
 * A new memory. A changed fact supersedes the memory it changes; a possible one waits for review beside it.
 * An unconfirmed write never demotes what a person vouched for (issue 39): a pending candidate, or one
 * changing a confirmed or global memory, records the conflict and waits for a person instead.
 */
function planNew(
  plan: StorePlan,
  c: Candidate,
  base: Base,
  id: string,
  vector: number[],
  decision: Extract<DedupDecision, { kind: 'new' | 'update' | 'unsure' }>,
  ctx: StoreContext,
): void {
  const { now, confirmedBy } = ctx;
  const change = decision.kind === 'update' || decision.kind === 'unsure' ? decision : undefined;
  // A value said before the one stored (an older conversation learned late: a backfill, a live turn learned
  // first) is the value before it, not its change: kept, superseded by the stored one, which stays in use.
  // Only beside a value in use, and for a candidate that needs no review (one held for review waits as before).
  const before =
    change?.kind === 'update' &&
    !c.pending &&
    (change.of.status === 'active' || change.of.status === 'confirmed') &&
    saidBefore(c, change.of, now)
      ? change.of
      : undefined;
  const waits =
    !before &&
    (change?.kind === 'unsure' ||
      (change !== undefined && !confirmedBy && (c.pending || vouched(change.of))));
  const supersedes = change && !waits && !before ? change.of : undefined;
  const unsure = change && waits ? change : undefined;
  const pending = c.pending || !!unsure;
  const reason = [
    c.reason,
    unsure && `pending: may change ${unsure.of.id} (${unsure.reason})`,
    supersedes && `supersedes ${supersedes.id} (${change!.reason})`,
    before && `the value before ${before.id}, said earlier (${change!.reason}): superseded by it`,
    c.pending && c.pending_reason && !unsure && `pending: ${c.pending_reason}`,
    c.held && unsure && c.held,
  ]
    .filter(Boolean)
    .join('; ');
  const made = newMemory(c, id, vector, ctx, { pending, reason, supersedes, unsure: unsure?.of });
  const memory: Memory = before ? { ...made, status: 'superseded', superseded_by: before.id } : made;
  plan.created.push({ memory, vector });
  if (unsure) {
    // When unsure, both go to review; the older stays recalled until someone decides.
    const fresh = plan.created.find((r) => r.memory.id === unsure.of.id);
    if (fresh) fresh.memory = { ...fresh.memory, contested_by: memory.id };
    else {
      const older = plan.refreshed.get(unsure.of.id)?.after ?? unsure.of;
      plan.contested.set(older.id, {
        before: older,
        after: { ...older, contested_by: memory.id, updated_at: now },
      });
    }
  }
  const revived = supersedes && plan.revived.get(supersedes.id);
  if (revived) {
    // Said again earlier in this batch, and changed once more after that.
    revived.after = { ...revived.after, status: 'superseded', superseded_by: memory.id, updated_at: now };
    revived.note += `; then superseded by ${memory.id}`;
  } else if (supersedes) {
    const older = latestInPlan(plan, supersedes);
    plan.superseded.set(supersedes.id, {
      before: older,
      after: { ...older, status: 'superseded', superseded_by: memory.id, updated_at: now },
    });
  }
  plan.decisions.push({
    ...base,
    id: memory.id,
    outcome: pending ? 'pending' : 'stored',
    reason: memory.reason,
  });
}

/** The memory a new candidate is stored as. */
function newMemory(
  c: Candidate,
  id: string,
  vector: number[],
  ctx: StoreContext,
  how: { pending: boolean; reason: string; supersedes?: Memory; unsure?: Memory },
): Memory {
  const { session, now, confirmedBy, captureId } = ctx;
  const { pending, supersedes, unsure } = how;
  const tier: Tier = confirmedBy && !c.pending ? 'person' : (c.tier ?? 'own-turn');
  return {
    id,
    text: c.text,
    category: c.category,
    source_type: c.source_type ?? session.source_type,
    project_id: session.project_id,
    confidence_score: round(c.confidence),
    is_actionable: c.is_actionable,
    source_ref: [...new Set([...c.source_ref, ...(session.source_ref ?? [])])],
    status: pending ? 'pending' : confirmedBy ? 'confirmed' : 'active',
    ...(confirmedBy && !pending ? { confirmed_by: confirmedBy } : {}),
    ...(supersedes ? { supersedes: supersedes.id } : {}),
    ...(unsure ? { may_change: unsure.id } : {}),
    created_at: now,
    updated_at: now,
    last_seen_at: now,
    times_seen: 1,
    added_by: ctx.by,
    reason: how.reason,
    score: c.score,
    embedding_model: ctx.embeddingModel,
    embedding_dim: vector.length,
    use_count: 0,
    ...(c.speaker ? { speaker: c.speaker } : {}),
    ...(c.occurred_at ? { occurred_at: c.occurred_at } : {}),
    ...(c.times?.length ? { times: c.times } : {}),
    ...(captureId ? { captures: captureId } : {}),
    tier,
    ...(c.held ? { held: c.held } : {}),
  };
}

/** A memory an unconfirmed write may not supersede: a person confirmed it, or it was promoted to global. */
function vouched(m: Memory): boolean {
  return m.status === 'confirmed' || m.project_id === GLOBAL_PROJECT || tierOf(m) === 'person';
}

/**
 * The audit entries of a plan once applied, without the capture id: create, refresh, supersede, contest, in
 * that order. Read when the writes are done (what was created is in its final version).
 */
export function planAudit(plan: StorePlan, ctx: StoreContext): AuditEntry[] {
  const { now, by } = ctx;
  type Changes = Record<string, [unknown, unknown]>;
  const entry = (action: 'refresh' | 'update', m: Memory, changes: Changes, note?: string): AuditEntry => ({
    at: now,
    action,
    memory_id: m.id,
    project_id: m.project_id,
    by,
    changes,
    ...(note !== undefined ? { note } : {}),
  });
  return [
    ...plan.created.map((r) => ({
      at: now,
      action: 'create' as const,
      memory_id: r.memory.id,
      project_id: ctx.session.project_id,
      by,
      changes: snapshot(r.memory),
    })),
    ...[...plan.refreshed.values()].map((r) =>
      entry(
        'refresh',
        r.after,
        {
          times_seen: [r.before.times_seen, r.after.times_seen],
          last_seen_at: [r.before.last_seen_at, now],
        },
        r.note,
      ),
    ),
    ...[...plan.superseded.values()].map((r) =>
      entry(
        'update',
        r.after,
        { status: [r.before.status, 'superseded'], superseded_by: [undefined, r.after.superseded_by] },
        `superseded by ${r.after.superseded_by}: a newer value of the same fact`,
      ),
    ),
    ...[...plan.revived.values()].map((r) =>
      entry(
        'update',
        r.after,
        {
          status: [r.before.status, r.after.status],
          superseded_by: [r.before.superseded_by, undefined],
          supersedes: [r.before.supersedes, r.after.supersedes],
          times_seen: [r.before.times_seen, r.after.times_seen],
        },
        r.note,
      ),
    ),
    ...[...plan.contested.values()].map((r) =>
      entry(
        'update',
        r.after,
        { contested_by: [undefined, r.after.contested_by] },
        `in review: ${r.after.contested_by} may change it (both wait for a decision)`,
      ),
    ),
  ];
}
