/**
 * The review queue in groups a person can decide at once (issue 32): ranked by value as one list, or
 * grouped by the session a memory was learned from, by the agent (or kind of source) it came from, or by
 * topic (its category). Within a group, and groups among themselves, the most valuable first; the person's
 * own words before an agent's. vscode-free; unit-tested in test/unit/reviewGroups.test.ts.
 */
import type { Memory } from '../../sidecar/model';
import { agentOfRefs, CAPTURE_SOURCE_LABEL } from '../../sidecar/shared/agentSources';
import { CATEGORY_LABEL, SOURCE_LABEL } from './memoryText';

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
