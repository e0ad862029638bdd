/**
 * The plan of one batch of a bulk import, pure: given the batch's items (redacted, embedded) and what was
 * looked up (the stored memories with their ids, the near neighbours of the others), which items become
 * memories and how many are duplicates or blocked. The same text stored already is a duplicate, or blocked
 * when that memory was marked wrong; so is an item whose near neighbour, or an item earlier in the batch,
 * says the same (ingest/dedup.ts). Duplicates are skipped, not refreshed; a changed fact (update, unsure) is
 * imported beside the memory it changes: the backup's author kept both. No store, no clock: bulkImport.ts
 * looks up, plans, then writes the plan under the data folder's write lock.
 */
import type { Category, Memory } from '../model';
import type { BulkImportMemory } from '../protocol';
import type { Neighbour } from '../store/memoryStore';
import { decideDedup, type DedupDecision } from './dedup';
import { looksActionable } from './input';

/** A memory to import, redacted, with the id and category it is stored under. */
export interface ImportItem {
  m: BulkImportMemory;
  text: string;
  id: string;
  category: Category;
}

/** What the look-up stage read from the store for a batch. */
export interface ImportLookup {
  /**
   * The stored memories with the batch's ids (and, in a window's first batch, those of the whole window that
   * its read found stored): each counts as a duplicate, or blocked.
   */
  stored: ReadonlyMap<string, Memory>;
  /**
   * The nearest stored neighbour, in its project and category, of each item not stored, by the item's id;
   * looked up only for the items that have some stored memory within the dedup distance.
   */
  nearest: ReadonlyMap<string, Neighbour>;
}

export interface ImportContext {
  /** The time stamped on every memory imported (and its created time when the item has none). */
  now: string;
  /** Who imports. */
  user: string;
  /** The embedding model the vectors come from. */
  embeddingModel: string;
  /** The dedup cosine distance. */
  limit: number;
}

export interface ImportPlan {
  /** The memories to write, in order. */
  records: { memory: Memory; vector: number[] }[];
  duplicates: number;
  blocked: number;
}

/** The items of a batch whose text is not stored yet: the ones deduplicated by their vectors. */
export function notStored<T extends { b: ImportItem }>(
  items: readonly T[],
  stored: ReadonlyMap<string, Memory>,
): T[] {
  return items.filter(({ b }) => !stored.has(b.id));
}

/** Plans one batch of an import. */
export function planImport(
  items: readonly { b: ImportItem; vector: number[] }[],
  found: ImportLookup,
  ctx: ImportContext,
): ImportPlan {
  const plan: ImportPlan = { records: [], duplicates: 0, blocked: 0 };
  const skipped = (d: DedupDecision): boolean => {
    // An older value said again is not imported as the value in use: the import only adds what is new.
    if (d.kind !== 'blocked' && d.kind !== 'duplicate' && d.kind !== 'restated') return false;
    plan[d.kind === 'blocked' ? 'blocked' : 'duplicates']++;
    return true;
  };
  // The same text already stored: a duplicate, or blocked when that memory was marked wrong.
  for (const m of found.stored.values())
    skipped(
      decideDedup(
        { id: m.id, text: m.text, category: m.category, project_id: m.project_id, vector: [] },
        { sameId: m },
        ctx.limit,
      ),
    );
  for (const { b, vector } of notStored(items, found.stored)) {
    const d = decideDedup(
      { id: b.id, text: b.text, category: b.category, project_id: b.m.project_id, vector },
      { neighbour: found.nearest.get(b.id), earlier: plan.records },
      ctx.limit,
    );
    if (!skipped(d)) plan.records.push({ vector, memory: importedMemory(b, vector, ctx) });
  }
  return plan;
}

/** The memory an item is imported as. */
function importedMemory(b: ImportItem, vector: number[], ctx: ImportContext): Memory {
  const { now } = ctx;
  const created = b.m.created_at ? new Date(b.m.created_at).toISOString() : now;
  return {
    id: b.id,
    text: b.text,
    category: b.category,
    source_type: b.m.source_type ?? 'import',
    project_id: b.m.project_id,
    confidence_score: 0.8,
    is_actionable: looksActionable(b.text),
    source_ref: [],
    status: 'active',
    created_at: created,
    updated_at: now,
    last_seen_at: created,
    times_seen: 1,
    added_by: ctx.user,
    reason: 'bulk import',
    score: 6,
    embedding_model: ctx.embeddingModel,
    embedding_dim: vector.length,
    use_count: 0,
  };
}
