/**
 * Bulk import of ready-made memories: each text is redacted, embedded in windows of 256, deduplicated
 * (looked up, then the pure plan of ingest/importPlan.ts over ingest/dedup.ts) against the store (same id, or a near neighbour in the same project and category,
 * looked for only when some stored memory is that near; one matching a memory marked wrong is blocked) and against the import itself (earlier batches are
 * already stored), and upserted in batches of 64. Duplicates are skipped, not refreshed. Cancellable between
 * batches. The next window is redacted and embedded while the current one is deduplicated and stored
 * (the model is the bottleneck: docs/benchmarks.md).
 */
import type { Core } from '../core';
import { checkCancelled, InvalidInputError } from '../shared/errors';
import { snapshot } from '../lifecycle/auditChanges';
import { isCategory, isSourceType, MAX_MEMORY_CHARS, memoryId, type Memory } from '../model';
import { cutText } from '../shared/text';
import { redactText } from '../pipeline/redact';
import type { BulkImportMemory, BulkImportResult } from '../protocol';
import { type Neighbour } from '../store/memoryStore';
import { buildWhere } from '../store/where';
import { notStored, planImport, type ImportItem, type ImportLookup } from './importPlan';
import { guessCategory } from './input';
import { currentNeighbours, NEIGHBOURS_ASKED } from './neighbours';

/**
 * Memories per window: embedded in one call, which the provider sorts by length, so each inference batch of
 * 32 pads to texts of about one length (on the bench's texts 10% fewer padded tokens than windows of 64, and
 * 9-14% less CPU in the embedding worker: docs/benchmarks.md).
 */
const WINDOW = 256;
/**
 * Memories per dedup query, upsert and audit append within a window: the Chroma calls and the lexical-index
 * transaction a recall may wait for during an import stay as short as they were.
 */
const STORE_BATCH = 64;

function validate(memories: BulkImportMemory[]): void {
  if (!Array.isArray(memories)) throw new InvalidInputError('import needs a memories array.');
  memories.forEach((m, i) => {
    if (!m || typeof m.text !== 'string' || !m.text.trim())
      throw new InvalidInputError(`Memory ${i + 1} has no text.`);
    if (typeof m.project_id !== 'string' || !m.project_id)
      throw new InvalidInputError(`Memory ${i + 1} has no project_id.`);
    if (m.category !== undefined && !isCategory(m.category))
      throw new InvalidInputError(`Memory ${i + 1} has an unknown category "${String(m.category)}".`);
    if (m.source_type !== undefined && !isSourceType(m.source_type))
      throw new InvalidInputError(`Memory ${i + 1} has an unknown source_type "${String(m.source_type)}".`);
    if (m.created_at !== undefined && Number.isNaN(Date.parse(m.created_at)))
      throw new InvalidInputError(`Memory ${i + 1} has an invalid created_at "${m.created_at}".`);
  });
}

export async function bulkImport(
  core: Core,
  memories: BulkImportMemory[],
  onProgress?: (done: number, total: number) => void,
  token?: { isCancellationRequested: boolean },
): Promise<BulkImportResult> {
  validate(memories);
  const { store } = core;
  await core.requireModel();
  const result: BulkImportResult = { imported: 0, duplicates: 0, blocked: 0, redactions: 0, truncated: 0 };
  const seen = new Set<string>();
  const projects = new Set<string>();
  /** Redacts a slice, reads back what is stored already and starts embedding the rest. */
  const prepare = async (start: number) => {
    const batch: ImportItem[] = [];
    for (const m of memories.slice(start, start + WINDOW)) {
      const whole = m.text.trim();
      if (whole.length > MAX_MEMORY_CHARS) result.truncated = (result.truncated ?? 0) + 1;
      const r = await redactText(cutText(whole, MAX_MEMORY_CHARS));
      result.redactions += r.findings.reduce((n, f) => n + f.count, 0);
      const id = memoryId(m.project_id, r.text);
      if (seen.has(id)) {
        result.duplicates++;
        continue;
      }
      seen.add(id);
      batch.push({ m, text: r.text, id, category: m.category ?? guessCategory(r.text) });
    }
    const stored = new Map((await store.get(batch.map((b) => b.id))).map((x) => [x.id, x]));
    const fresh = batch.filter((b) => !stored.has(b.id));
    const vectors = fresh.length
      ? core.embedding.embed(
          fresh.map((b) => b.text),
          { bulk: true },
        )
      : Promise.resolve([]);
    vectors.catch(() => undefined); // awaited in turn; a failure meanwhile must not go unhandled
    return { stored, fresh, vectors };
  };
  // One window ahead: the model embeds the next window while this one is deduplicated and stored.
  let next: ReturnType<typeof prepare> | undefined = prepare(0);
  for (let start = 0; next; start += WINDOW) {
    const cur = await next;
    next = start + WINDOW < memories.length ? prepare(start + WINDOW) : undefined;
    next?.catch(() => undefined);
    checkCancelled(token);
    const vectors = await cur.vectors;
    const size = Math.min(WINDOW, memories.length - start);
    for (let i = 0; i === 0 || i < cur.fresh.length; i += STORE_BATCH) {
      if (i > 0) checkCancelled(token);
      const items = cur.fresh.slice(i, i + STORE_BATCH).map((b, j) => ({ b, vector: vectors[i + j]! }));
      const records = await store.exclusiveWrite(() =>
        storeBatch(core, items, i === 0 ? cur.stored : new Map(), result),
      );
      for (const r of records) projects.add(r.memory.project_id);
      result.imported += records.length;
      const done = cur.fresh.length ? Math.round((size * (i + items.length)) / cur.fresh.length) : size;
      onProgress?.(start + done, memories.length);
    }
  }
  core.notifyChanged([...projects]);
  return result;
}

/**
 * Deduplicates and stores embedded items, counting the duplicates and blocked ones in `result`: looks up, plans
 * (ingest/importPlan.ts, pure), writes. `storedBefore`: what the window's read found stored already. Runs
 * alone on the data folder (two importers, one copy); the embedding ran outside that lock, so a text another
 * importer stored meanwhile is read again.
 */
async function storeBatch(
  core: Core,
  items: { b: ImportItem; vector: number[] }[],
  storedBefore: ReadonlyMap<string, Memory>,
  result: BulkImportResult,
): Promise<{ memory: Memory; vector: number[] }[]> {
  const { store, config } = core;
  const limit = config.pipeline.dedupDistance;
  const found = await lookUp(core, items, storedBefore, limit);
  const now = core.now();
  const plan = planImport(items, found, {
    now,
    user: config.user,
    embeddingModel: core.embedding.modelId,
    limit,
  });
  result.duplicates += plan.duplicates;
  result.blocked += plan.blocked;
  const { records } = plan;
  await store.upsert(records);
  core.audit.append(
    records.map((r) => ({
      at: now,
      action: 'import' as const,
      memory_id: r.memory.id,
      project_id: r.memory.project_id,
      by: config.user,
      changes: snapshot(r.memory),
      note: 'bulk import',
    })),
  );
  return records;
}

/**
 * The store reads a batch's plan needs: the stored memories with its ids, then the nearest stored neighbour per
 * item of its project and category, one Chroma call per group. Only for the items with some stored memory
 * within the dedup distance: for the others (most of an import) the nearest of their group is farther still,
 * so it decides nothing. That is one unfiltered query of distances for the batch, instead of a query per group
 * whose where costs in proportion to its rows.
 */
async function lookUp(
  core: Core,
  items: { b: ImportItem; vector: number[] }[],
  storedBefore: ReadonlyMap<string, Memory>,
  limit: number,
): Promise<ImportLookup> {
  const { store } = core;
  const stored = new Map(storedBefore);
  for (const m of await store.get(items.map(({ b }) => b.id))) stored.set(m.id, m);
  const fresh = notStored(items, stored);
  const overall = fresh.length
    ? await store.nearestIdsMany(
        fresh.map(({ vector }) => vector),
        1,
      )
    : [];
  const nearest = new Map<string, Neighbour>();
  const groups = new Map<string, number[]>();
  fresh.forEach(({ b }, i) => {
    if (!((overall[i]?.[0]?.distance ?? Infinity) < limit)) return;
    const k = JSON.stringify([b.m.project_id, b.category]);
    groups.set(k, [...(groups.get(k) ?? []), i]);
  });
  for (const idx of groups.values()) {
    const first = fresh[idx[0]!]!.b;
    const hits = await currentNeighbours(
      await store.queryMany(
        idx.map((i) => fresh[i]!.vector),
        buildWhere({ project_id: first.m.project_id, category: first.category }),
        NEIGHBOURS_ASKED,
      ),
      limit,
      (ids) => store.get(ids),
    );
    idx.forEach((i, j) => hits[j] && nearest.set(fresh[i]!.b.id, hits[j]));
  }
  return { stored, nearest };
}
