/**
 * The readable export next to the encrypted backup: `mnemo export --format jsonl|markdown` and
 * "Mnemo: Export Memories as Text…". Plain files a person or another tool can read. Every text was
 * redacted when it was stored, so no secret is in them; they are NOT encrypted (the user is told).
 * Tombstones (memories marked wrong) are left out unless asked: they exist to block re-learning.
 * Pure rendering.
 */
import type { Memory } from '../model';

export const READABLE_FORMATS = ['jsonl', 'markdown'] as const;
export type ReadableFormat = (typeof READABLE_FORMATS)[number];

export function isReadableFormat(v: unknown): v is ReadableFormat {
  return typeof v === 'string' && (READABLE_FORMATS as readonly string[]).includes(v);
}

/** The fields of a memory another tool needs; embedding bookkeeping is left out. */
function record(m: Memory) {
  return {
    id: m.id,
    project_id: m.project_id,
    text: m.text,
    category: m.category,
    status: m.status,
    confidence_score: m.confidence_score,
    source_type: m.source_type,
    source_ref: m.source_ref,
    added_by: m.added_by,
    ...(m.confirmed_by ? { confirmed_by: m.confirmed_by } : {}),
    created_at: m.created_at,
    updated_at: m.updated_at,
    times_seen: m.times_seen,
    ...(m.promoted_from ? { promoted_from: m.promoted_from } : {}),
  };
}

function sorted(memories: Memory[]): Memory[] {
  return [...memories].sort(
    (a, b) =>
      a.project_id.localeCompare(b.project_id) ||
      a.created_at.localeCompare(b.created_at) ||
      a.id.localeCompare(b.id),
  );
}

export function renderReadable(
  memories: Memory[],
  format: ReadableFormat,
  meta: { at: string; by: string },
): string {
  const ms = sorted(memories);
  if (format === 'jsonl')
    return ms.map((m) => JSON.stringify(record(m))).join('\n') + (ms.length ? '\n' : '');
  const out = [
    '# Mnemo memories',
    '',
    `Exported ${meta.at} by ${meta.by}: ${ms.length} memor${ms.length === 1 ? 'y' : 'ies'}. Secrets were redacted when each memory was stored. This file is plain text and not encrypted; use \`mnemo export --out\` for an encrypted backup.`,
  ];
  let project: string | undefined;
  for (const m of ms) {
    if (m.project_id !== project) {
      project = m.project_id;
      out.push('', `## ${project}`, '');
    }
    const from = m.source_ref.length
      ? `; from ${m.source_ref.slice(0, 3).join(', ')}${m.source_ref.length > 3 ? ', …' : ''}`
      : '';
    out.push(
      `- ${m.text.replace(/\s*\n\s*/g, ' ')}  `,
      `  _${m.category}, ${m.status}, confidence ${m.confidence_score.toFixed(2)}, ${m.created_at.slice(0, 10)}, by ${m.confirmed_by ?? m.added_by}${from} — ${m.id}_`,
    );
  }
  return out.join('\n') + '\n';
}
