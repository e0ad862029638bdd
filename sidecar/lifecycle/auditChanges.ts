/** What an audit entry records of a change: the tracked fields, as [before, after] pairs. */
import type { Memory } from '../model';

const TRACKED: (keyof Memory)[] = [
  'text',
  'category',
  'source_type',
  'project_id',
  'confidence_score',
  'is_actionable',
  'source_ref',
  'status',
  'confirmed_by',
];

/** The tracked fields that differ between two versions of a memory. */
export function diff(a: Memory, b: Memory): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const k of TRACKED) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out[k] = [a[k] ?? null, b[k] ?? null];
  }
  return out;
}

/** The tracked fields of a memory that was created (null -> value) or removed (value -> null). */
export function snapshot(m: Memory, removed = false): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const k of TRACKED) if (m[k] !== undefined) out[k] = removed ? [m[k], null] : [null, m[k]];
  return out;
}
