/**
 * A memory as Chroma keeps it: the metadata codec (every optional field written, '' for absent, because
 * Chroma's update merges keys), and a memory's entry in the lexical index with the fields its facts come from.
 */
import type { Metadata } from 'chromadb';
import { isCategory, isSourceType, isStatus, isTier, type Memory, type TimeSpan } from '../model';
import { memoryFacts } from './lexical/facts';
import type { LexicalDoc } from './lexical/lexical';
import { wellFormed } from '../shared/text';

/** A memory's entry in the lexical index: its words, its project and its facts. */
export function memoryLexicalDoc(m: Memory): LexicalDoc {
  return { id: m.id, kind: 'memory', project: m.project_id, text: m.text, facts: memoryFacts(m) };
}

/** The fields a memory's facts (store/lexical/facts.ts) are derived from, besides its text. */
export const FACT_FIELDS: ReadonlySet<keyof Memory> = new Set<keyof Memory>([
  'project_id',
  'status',
  'confidence_score',
  'occurred_at',
  'created_at',
  'times',
  'source_ref',
  'tier',
  'edited_at',
  'added_by',
  'confirmed_by',
  'source_type',
]);

const OPTIONAL_STRING_FIELDS = [
  'confirmed_by',
  'last_used_at',
  'decayed_through',
  'promoted_from',
  'notify_user',
  'wrong_by',
  'wrong_at',
  'speaker',
  'occurred_at',
  'superseded_by',
  'supersedes',
  'captures',
  'may_change',
  'contested_by',
  'held',
  'edited_at',
  'flagged_by',
] as const;

export function toMetadata(m: Memory): Metadata {
  const meta: Metadata = {
    project_id: m.project_id,
    category: m.category,
    source_type: m.source_type,
    confidence_score: m.confidence_score,
    is_actionable: m.is_actionable,
    source_ref: JSON.stringify(m.source_ref),
    status: m.status,
    created_at: m.created_at,
    created_ts: Date.parse(m.created_at),
    updated_at: m.updated_at,
    last_seen_at: m.last_seen_at,
    times_seen: m.times_seen,
    added_by: m.added_by,
    reason: m.reason,
    score: m.score,
    embedding_model: m.embedding_model,
    embedding_dim: m.embedding_dim,
    use_count: m.use_count,
  };
  // Optional fields are always written ('' = absent) because Chroma's update merges metadata keys.
  for (const k of OPTIONAL_STRING_FIELDS) meta[k] = m[k] ?? '';
  meta.times = m.times?.length ? JSON.stringify(m.times) : '';
  meta.tier = m.tier ?? '';
  // The review queue: pending memories, the older ones a pending memory may change, those an agent flagged.
  meta.in_review = m.status === 'pending' || !!m.contested_by || !!m.flagged_by;
  // A lone surrogate anywhere makes Chroma refuse the whole batch (400): store U+FFFD instead.
  for (const [k, v] of Object.entries(meta)) if (typeof v === 'string') meta[k] = wellFormed(v);
  return meta;
}

export function fromMetadata(id: string, text: string | null, meta: Metadata | null): Memory {
  const md = (meta ?? {}) as Record<string, unknown>;
  const str = (k: string, d = ''): string => (typeof md[k] === 'string' ? (md[k] as string) : d);
  const num = (k: string, d = 0): number => (typeof md[k] === 'number' ? (md[k] as number) : d);
  let refs: string[] = [];
  try {
    const parsed: unknown = JSON.parse(str('source_ref', '[]'));
    if (Array.isArray(parsed)) refs = parsed.map(String);
  } catch {
    refs = str('source_ref') ? [str('source_ref')] : [];
  }
  const category = md.category;
  const sourceType = md.source_type;
  const status = md.status;
  const mem: Memory = {
    id,
    text: text ?? '',
    category: isCategory(category) ? category : 'episodic',
    source_type: isSourceType(sourceType) ? sourceType : 'manual',
    project_id: str('project_id'),
    confidence_score: num('confidence_score'),
    is_actionable: md.is_actionable === true,
    source_ref: refs,
    status: isStatus(status) ? status : 'active',
    created_at: str('created_at'),
    updated_at: str('updated_at'),
    last_seen_at: str('last_seen_at', str('created_at')),
    times_seen: num('times_seen', 1),
    added_by: str('added_by'),
    reason: str('reason'),
    score: num('score'),
    embedding_model: str('embedding_model'),
    embedding_dim: num('embedding_dim'),
    use_count: num('use_count'),
  };
  for (const k of OPTIONAL_STRING_FIELDS) if (str(k)) mem[k] = str(k);
  const times = parseTimes(str('times'));
  if (times.length) mem.times = times;
  const tier = md.tier;
  if (isTier(tier)) mem.tier = tier;
  return mem;
}

/** The `times` metadata (JSON) back as spans; anything malformed is dropped. */
export function parseTimes(json: string): TimeSpan[] {
  if (!json) return [];
  try {
    const v: unknown = JSON.parse(json);
    if (!Array.isArray(v)) return [];
    return v.filter(
      (t): t is TimeSpan =>
        !!t && typeof t.text === 'string' && typeof t.start === 'string' && typeof t.end === 'string',
    );
  } catch {
    return [];
  }
}
