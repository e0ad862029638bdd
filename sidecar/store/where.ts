/**
 * A Chroma `where` from a memory filter. Filters are values, never operators: every field is checked for
 * its type (and enum) first.
 */
import type { Where } from 'chromadb';
import { isCategory, isSourceType, isStatus } from '../model';
import type { MemoryFilter } from '../protocol';
import { InvalidInputError } from '../shared/errors';

/**
 * Filters are values, never operators: a `project_id` of `{"$ne": "mine"}` sent over JSON-RPC would
 * otherwise become a Chroma operator and return every other project's memories. Every field is checked
 * for its type (and enum) before a `where` is built; anything else is refused with one sentence.
 */
function checkFilter(f: MemoryFilter & { project_ids?: unknown; min_confidence?: unknown }): void {
  const bad = (field: string, what: string) =>
    new InvalidInputError(`The filter's ${field} must be ${what}.`);
  const text = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 512;
  if (f.project_id !== undefined && !text(f.project_id)) throw bad('project_id', 'a project id (a string)');
  if (f.project_ids !== undefined && !(Array.isArray(f.project_ids) && f.project_ids.every(text)))
    throw bad('project_ids', 'a list of project ids (strings)');
  if (f.status !== undefined && !(Array.isArray(f.status) && f.status.every((x) => isStatus(x))))
    throw bad('status', 'a list of statuses');
  if (f.category !== undefined && !isCategory(f.category))
    throw bad('category', 'persona, episodic or instruction');
  if (f.source_type !== undefined && !isSourceType(f.source_type)) throw bad('source_type', 'a source type');
  for (const k of ['since', 'until'] as const) {
    if (f[k] !== undefined && !(typeof f[k] === 'string' && Number.isFinite(Date.parse(f[k]))))
      throw bad(k, 'an ISO-8601 date');
  }
  for (const k of ['max_confidence', 'min_confidence'] as const) {
    const v: unknown = f[k];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v))) throw bad(k, 'a number');
  }
  if (f.is_actionable !== undefined && typeof f.is_actionable !== 'boolean')
    throw bad('is_actionable', 'true or false');
  if (f.in_review !== undefined && typeof f.in_review !== 'boolean') throw bad('in_review', 'true or false');
}

/** Builds a Chroma `where` from a filter (undefined when empty); refuses operators and wrong types. */
export function buildWhere(
  f: MemoryFilter & { project_ids?: string[]; min_confidence?: number; ids?: never },
): Where | undefined {
  checkFilter(f);
  const clauses: Where[] = [];
  const projects = f.project_ids ?? (f.project_id ? [f.project_id] : undefined);
  if (projects && projects.length) {
    clauses.push(projects.length === 1 ? { project_id: projects[0] } : { project_id: { $in: projects } });
  }
  if (f.in_review === true) clauses.push({ $or: [{ status: 'pending' }, { in_review: true }] });
  if (f.status && f.status.length)
    clauses.push(f.status.length === 1 ? { status: f.status[0] } : { status: { $in: f.status } });
  if (f.category) clauses.push({ category: f.category });
  if (f.source_type) clauses.push({ source_type: f.source_type });
  if (f.since) clauses.push({ created_ts: { $gte: Date.parse(f.since) } });
  if (f.until) clauses.push({ created_ts: { $lte: Date.parse(f.until) } });
  if (f.max_confidence !== undefined) clauses.push({ confidence_score: { $lt: f.max_confidence } });
  if (f.min_confidence !== undefined) clauses.push({ confidence_score: { $gt: f.min_confidence } });
  if (f.is_actionable !== undefined) clauses.push({ is_actionable: f.is_actionable });
  if (clauses.length === 0) return undefined;
  if (clauses.length === 1) return clauses[0];
  return { $and: clauses };
}
