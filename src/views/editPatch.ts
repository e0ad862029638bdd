/**
 * The edit form's values and what saving them changes: only fields whose value differs from the one the
 * form opened with go into the `mnemo/memory/update` patch, so pressing Save on an untouched field never
 * changes it. No `vscode` import; unit-tested in test/unit/editPatch.test.ts.
 */
import { CATEGORIES, type Category, type Memory } from '../../sidecar/model';
import type { UpdateParams } from '../../sidecar/protocol';
import { CATEGORY_LABEL, percent, shortText } from '../shared/memoryText';

export type Patch = UpdateParams['patch'];

/** What the form shows and sends back. */
export interface EditValues {
  text: string;
  category: Category;
  /** 0..100, as typed. */
  confidence: string;
  actionable: boolean;
  /** One source per line (commas separate too). */
  sources: string;
}

export function formValues(m: Memory): EditValues {
  return {
    text: m.text,
    category: m.category,
    confidence: String(Math.round(m.confidence_score * 100)),
    actionable: m.is_actionable,
    sources: m.source_ref.join('\n'),
  };
}

/**
 * What a source added in the form must read like: a file and line (`src/app.ts:12`, `:12:4`) or a kind and
 * a value without spaces (`msg:m5`, `file:AGENTS.md#L5`, `cwd:/repo`, `https://…`). Sources a memory
 * already has are kept as they are (a terminal's `cmd:npm run migrate` has spaces).
 */
export const SOURCE_REF = /^(?:[\w./@-]+:\d+(?::\d+)?|[a-z][\w-]*:\S+)$/i;

function parseSources(sources: string): string[] {
  return sources
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** One sentence when the values cannot be saved, else undefined (`before`: the values the form opened with). */
export function validateEdit(v: EditValues, before?: EditValues): string | undefined {
  if (typeof v.text !== 'string' || !v.text.trim()) return 'The text cannot be empty.';
  if (!CATEGORIES.includes(v.category)) return 'Choose a category.';
  const n = Number(v.confidence);
  if (String(v.confidence).trim() === '' || !Number.isFinite(n) || n < 0 || n > 100)
    return 'Confidence is a number from 0 to 100.';
  const had = new Set(before ? parseSources(before.sources) : []);
  const bad = parseSources(v.sources).find((r) => !had.has(r) && !SOURCE_REF.test(r));
  if (bad) return `“${bad}” is not a source: write a file and line (src/app.ts:12), msg:<id> or a URL.`;
  return undefined;
}

/** The fields that differ from `before` (the values the form opened with). */
export function editPatch(before: EditValues, after: EditValues): Patch {
  const patch: Patch = {};
  if (after.text.trim() !== before.text.trim()) patch.text = after.text.trim();
  if (after.category !== before.category) patch.category = after.category;
  if (Math.round(Number(after.confidence)) !== Math.round(Number(before.confidence)))
    patch.confidence_score = Math.round(Number(after.confidence)) / 100;
  if (after.actionable !== before.actionable) patch.is_actionable = after.actionable;
  const sources = parseSources(after.sources);
  if (sources.join('\u0000') !== parseSources(before.sources).join('\u0000')) patch.source_ref = sources;
  return patch;
}

/** What a patch changes, in words: `text`, `category Instruction → Persona`, `confidence 86% → 70%`… */
export function describePatch(m: Memory, patch: Patch): string[] {
  const out: string[] = [];
  if (patch.text !== undefined) out.push('text');
  if (patch.category !== undefined)
    out.push(`category ${CATEGORY_LABEL[m.category]} → ${CATEGORY_LABEL[patch.category]}`);
  if (patch.confidence_score !== undefined)
    out.push(`confidence ${percent(m.confidence_score)} → ${percent(patch.confidence_score)}`);
  if (patch.is_actionable !== undefined)
    out.push(patch.is_actionable ? 'now actionable' : 'no longer actionable');
  if (patch.source_ref !== undefined) out.push(`sources (${patch.source_ref.length})`);
  if (patch.status !== undefined) out.push(`status ${m.status} → ${patch.status}`);
  return out;
}

/** The status bar sentence after a save: `Updated “Deploy with…”: text, category Instruction → Persona`. */
export function savedMessage(m: Memory, patch: Patch): string {
  const changes = describePatch(m, patch);
  return changes.length
    ? `Updated “${shortText(patch.text ?? m.text, 40)}”: ${changes.join(', ')}`
    : 'Nothing changed';
}
