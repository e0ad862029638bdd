/**
 * The review queue's shapes, without `vscode` (unit-tested in test/unit/reviewGroups.test.ts):
 * - rules imported from one file (`file:<path>#L<line>`, source `import`) wait together under that file, so a
 *   person can read them side by side and "Confirm All from AGENTS.md" — an import is not a confirmation
 *   (docs/design.md, "Trust") — groupImports;
 * - the rest in groups a person can decide at once (issue 32): ranked by value as one list, or grouped by the
 *   session a memory was learned from, by the agent (or kind of source) it came from, or by topic (its
 *   category). Within a group, and groups among themselves, the most valuable first; the person's own words
 *   before an agent's — groupReview.
 */
import type { Memory } from '../../sidecar/model';
import { agentOfRefs, CAPTURE_SOURCE_LABEL } from '../../sidecar/shared/agentSources';
import { CATEGORY_LABEL, SOURCE_LABEL } from '../shared/memoryText';

export const REVIEW_GROUPINGS = ['ranked', 'session', 'agent', 'topic'] as const;
export type ReviewGrouping = (typeof REVIEW_GROUPINGS)[number];

export const GROUPING_LABEL: Record<ReviewGrouping, string> = {
  ranked: 'Ranked by value',
  session: 'By session',
  agent: 'By source (agent)',
  topic: 'By topic',
};

export interface ReviewGroup {
  key: string;
  label: string;
  memories: Memory[];
}

/** An agent's own words rank after the person's at the same value. */
function said(m: Memory): number {
  return m.speaker && m.speaker !== 'user' && agentOfRefs(m.source_ref) ? 1 : 0;
}

/** Most valuable first; the person's words before an agent's; newer first. */
export function byValue(a: Memory, b: Memory): number {
  return b.score - a.score || said(a) - said(b) || b.created_at.localeCompare(a.created_at);
}

function keyOf(m: Memory, g: ReviewGrouping): { key: string; label: string } {
  const agent = agentOfRefs(m.source_ref);
  if (g === 'agent')
    return agent
      ? { key: `agent:${agent}`, label: CAPTURE_SOURCE_LABEL[agent] }
      : { key: `type:${m.source_type}`, label: SOURCE_LABEL[m.source_type] ?? m.source_type };
  if (g === 'topic') return { key: `cat:${m.category}`, label: CATEGORY_LABEL[m.category] ?? m.category };
  const session = m.source_ref.find((r) => r.startsWith('session:'));
  if (!session) return { key: 'session:none', label: 'Not from a session' };
  const id = session.split(':').slice(2).join(':');
  return {
    key: session,
    label: `${agent ? CAPTURE_SOURCE_LABEL[agent] : 'Session'} ${id.slice(0, 8)} · ${m.occurred_at?.slice(0, 10) ?? m.created_at.slice(0, 10)}`,
  };
}

/** The groups of a review queue (one group holding everything when ranked). */
export function groupReview(memories: Memory[], g: ReviewGrouping): ReviewGroup[] {
  const sorted = [...memories].sort(byValue);
  if (g === 'ranked') return [{ key: 'all', label: GROUPING_LABEL.ranked, memories: sorted }];
  const groups = new Map<string, ReviewGroup>();
  for (const m of sorted) {
    const { key, label } = keyOf(m, g);
    const group = groups.get(key) ?? groups.set(key, { key, label, memories: [] }).get(key)!;
    group.memories.push(m);
  }
  return [...groups.values()].sort(
    (a, b) => byValue(a.memories[0]!, b.memories[0]!) || b.memories.length - a.memories.length,
  );
}

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
export function groupImports(memories: Memory[]): { files: ReviewFileGroup[]; single: Memory[] } {
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
