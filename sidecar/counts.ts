/**
 * `mnemo/memory/counts`: the memories matching a filter counted per project, status, category and source
 * type, in one read of the store (the tree used to send one `mnemo/memory/list` per category and per source,
 * each reading every matching row). The tally is pure and unit-tested (test/unit/counts.test.ts).
 */
import type { Memory } from './model';
import type { CountGroup, CountsResult, MemoryFilter } from './protocol';
import { type MemoryStore } from './store/memoryStore';
import { buildWhere } from './store/where';
import { projectScope } from './store/projectScope';

type Grouped = Pick<Memory, 'project_id' | 'status' | 'category' | 'source_type'>;

/** Counts memories per (project, status, category, source type); only non-empty groups. */
export function tallyCounts(memories: Iterable<Grouped>): CountsResult {
  const groups = new Map<string, CountGroup>();
  let total = 0;
  for (const m of memories) {
    const key = `${m.project_id}\u0000${m.status}\u0000${m.category}\u0000${m.source_type}`;
    const g = groups.get(key);
    if (g) g.count++;
    else
      groups.set(key, {
        project_id: m.project_id,
        status: m.status,
        category: m.category,
        source_type: m.source_type,
        count: 1,
      });
    total++;
  }
  return { total, groups: [...groups.values()] };
}

/**
 * Counts the memories matching a filter. `project_id` scopes to one project (plus Global only when
 * `include_global` is true), as `mnemo/memory/list` does. Recall's deferred "used" marks change no counted
 * field, so this read need not wait for them.
 */
export async function countMemories(
  store: Pick<MemoryStore, 'find'>,
  f: MemoryFilter,
): Promise<CountsResult> {
  const projectIds = projectScope({ project_id: f.project_id, include_global: f.include_global }, false);
  const rows = await store.find(buildWhere({ ...f, project_id: undefined, project_ids: projectIds }));
  return tallyCounts(rows.map((r) => r.memory));
}
