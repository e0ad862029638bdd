/**
 * Which projects a filter reads, said once for every request that takes `project_id` / `project_ids` and
 * `include_global`: several projects at once win over one; Global is added when `include_global` says so, and
 * otherwise by the request's own default — a listing or a count of a project shows that project (the tree has
 * a Global node of its own), a search finds what applies there, Global included.
 */
import { GLOBAL_PROJECT } from '../model';

export function projectScope(
  f: { project_id?: string; project_ids?: string[]; include_global?: boolean },
  globalByDefault: boolean,
): string[] | undefined {
  const withGlobal = f.include_global ?? globalByDefault;
  const ids = f.project_ids?.length ? f.project_ids : f.project_id ? [f.project_id] : undefined;
  if (!ids) return undefined;
  return [...new Set(withGlobal ? [...ids, GLOBAL_PROJECT] : ids)];
}
