/**
 * The review queue's shape, without `vscode` (unit-tested in test/unit/reviewGroups.test.ts): rules
 * imported from one file (`file:<path>#L<line>`, source `import`) wait together under that file, so a person
 * can read them side by side and "Confirm All from AGENTS.md" — an import is not a confirmation
 * (docs/design.md, "Trust"); everything else is listed on its own, highest score first.
 */
import type { Memory } from '../../sidecar/model';

export interface ReviewFileGroup {
  /** The file as its memories cite it (`AGENTS.md`, `.cursor/rules/style.md`). */
  file: string;
  project_id: string;
  memories: Memory[];
  /** How many of them the firewall held (Confirm All leaves those). */
  held: number;
}

/** The file an imported rule came from, if it is one. */
export function importedFrom(m: Memory): string | undefined {
  if (m.source_type !== 'import' || m.status !== 'pending') return undefined;
  for (const ref of m.source_ref) {
    const f = /^file:(.+)#L\d+$/.exec(ref);
    if (f) return f[1];
  }
  return undefined;
}

/** Pending imported rules grouped by project and file (files in name order), and the rest as they came. */
export function groupReview(memories: Memory[]): { files: ReviewFileGroup[]; single: Memory[] } {
  const files = new Map<string, ReviewFileGroup>();
  const single: Memory[] = [];
  for (const m of memories) {
    const file = importedFrom(m);
    if (!file) {
      single.push(m);
      continue;
    }
    const key = `${m.project_id}\u0000${file}`;
    const g = files.get(key) ?? { file, project_id: m.project_id, memories: [], held: 0 };
    g.memories.push(m);
    if (m.held) g.held++;
    files.set(key, g);
  }
  for (const g of files.values())
    g.memories.sort((a, b) => lineOf(a, g.file) - lineOf(b, g.file) || a.id.localeCompare(b.id));
  const sorted = [...files.values()].sort(
    (a, b) => a.file.localeCompare(b.file) || a.project_id.localeCompare(b.project_id),
  );
  return { files: sorted, single };
}

/** The line a rule starts on in its file (the order a person wrote them in). */
function lineOf(m: Memory, file: string): number {
  const ref = m.source_ref.find((r) => r.startsWith(`file:${file}#L`));
  return ref ? Number(ref.slice(ref.lastIndexOf('#L') + 2)) : 0;
}

/** A file group in words: "12 imported rules · 2 held by the firewall". */
export function describeGroup(g: ReviewFileGroup): string {
  const n = g.memories.length;
  return `${n} imported rule${n === 1 ? '' : 's'}${g.held ? ` · ${g.held} held by the firewall` : ''}`;
}
