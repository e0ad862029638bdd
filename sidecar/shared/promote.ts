/**
 * Promote to the repository: confirmed memories written into a section Mnemo owns in the project's
 * instruction file (`AGENTS.md` by default), so a team shares decisions through git review. The section
 * is delimited by markers and updated in place; text outside it is never touched. The change is shown as
 * a diff first; each promoted memory gets `file:<instruction file>` in its provenance (an audited update).
 * Pure rendering here; writing goes through fileChange.ts's planChange/applyChange (backup, atomic rename). A
 * memory's text can neither close the section nor hide lines after it (`<!--`, `-->` are made inert), and a
 * file whose markers are not one well-formed pair is refused rather than guessed at.
 */
import type { Memory } from '../model';
import { inertInMarkdown, upsertSection } from './fileChange';

export const PROMOTED_BEGIN =
  '<!-- mnemo:memories:begin (managed by Mnemo: promote memories to update; edits inside are replaced) -->';
export const PROMOTED_END = '<!-- mnemo:memories:end -->';

const HEADING: Record<Memory['category'], string> = {
  instruction: 'Rules and decisions',
  persona: 'Preferences',
  episodic: 'Events',
};

/** Ids already in the section (so promoting again adds, never duplicates). */
export function promotedIds(markdown: string | undefined): string[] {
  if (!markdown) return [];
  const a = markdown.indexOf(PROMOTED_BEGIN);
  const b = a >= 0 ? markdown.indexOf(PROMOTED_END, a) : -1;
  if (a < 0 || b < 0) return [];
  return [...markdown.slice(a, b).matchAll(/<!--\s*(mem_[0-9a-f]{16})\s*-->/g)].map((m) => m[1]!);
}

/**
 * The line of `file` (as written in the project, e.g. `AGENTS.md`) a memory was imported from
 * (`file:AGENTS.md#L5` provenance, rulesImport.ts), or undefined when it was not imported from it.
 */
export function importedFrom(m: Memory, file: string): number | undefined {
  const prefix = `file:${file}#L`;
  for (const ref of m.source_ref)
    if (ref.startsWith(prefix)) {
      const line = Number(ref.slice(prefix.length));
      if (Number.isInteger(line) && line > 0) return line;
    }
  return undefined;
}

/**
 * What Promote to Repository offers for `file`: the confirmed memories, less those imported from that very
 * file — writing them again would repeat the file's own rules — which are listed apart with their line.
 */
export function promotionChoices(
  confirmed: Memory[],
  file: string,
): { offer: Memory[]; already: { memory: Memory; line: number }[] } {
  const offer: Memory[] = [];
  const already: { memory: Memory; line: number }[] = [];
  for (const m of confirmed) {
    const line = importedFrom(m, file);
    if (line === undefined) offer.push(m);
    else already.push({ memory: m, line });
  }
  return { offer, already };
}

/**
 * The instruction file with the section holding these memories (plus those already there that are still
 * given in `keep`), grouped by category, oldest first. Idempotent.
 */
export function renderPromoted(existing: string | undefined, memories: Memory[], file = 'the file'): string {
  const byId = new Map<string, Memory>();
  for (const m of memories) byId.set(m.id, m);
  const all = [...byId.values()].sort(
    (x, y) => x.created_at.localeCompare(y.created_at) || x.id.localeCompare(y.id),
  );
  const lines = [
    '## Project memory (from Mnemo)',
    '',
    'Decisions the team confirmed in Mnemo. Promote more from the Mnemo view or with `mnemo promote-to-repo`.',
  ];
  for (const cat of ['instruction', 'persona', 'episodic'] as const) {
    const ms = all.filter((m) => m.category === cat);
    if (ms.length === 0) continue;
    lines.push('', `### ${HEADING[cat]}`, '');
    for (const m of ms) lines.push(`- ${inertInMarkdown(m.text.replace(/\s*\n\s*/g, ' '))} <!-- ${m.id} -->`);
  }
  return upsertSection(existing, PROMOTED_BEGIN, PROMOTED_END, lines.join('\n'), file);
}
