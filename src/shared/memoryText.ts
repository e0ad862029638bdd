/**
 * How a memory reads everywhere (tree, review queue, pickers, tooltips), as plain strings: labels,
 * marks, descriptions, tooltip rows. No `vscode` import (present.ts turns these into icons, colours and
 * Markdown); unit-tested in test/unit/memoryText.test.ts.
 */
import {
  tierOf,
  type Category,
  type Memory,
  type MemoryStatus,
  type SourceType,
  type Tier,
} from '../../sidecar/model';
import type { EvidenceResult, IngestDecision, NearMiss, SearchResult } from '../../sidecar/protocol';
import { agentOfRefs, CAPTURE_SOURCE_LABEL } from '../../sidecar/shared/agentSources';
import { formatLocal, formatUtc, relativeAge } from '../time';
import { explainReason } from './reasons';

export const LOW_CONFIDENCE = 0.5;

/** A reader's words for what remembering a text did, by the decision's outcome (all but `dropped`). */
export type RememberedWords = Record<Exclude<IngestDecision['outcome'], 'dropped'>, string>;

/** How each category reads: its label, one line for pickers and the edit form, its codicon. */
const CATEGORIES: Record<Category, { label: string; detail: string; icon: string }> = {
  persona: { label: 'Persona', detail: 'Preferences, habits, who you are', icon: 'person' },
  episodic: { label: 'Episodic', detail: 'Events and what was done', icon: 'history' },
  instruction: {
    label: 'Instruction',
    detail: 'Workflows, rules, corrections, technical decisions',
    icon: 'checklist',
  },
};

/** How each source reads: its label and codicon. */
const SOURCES: Record<SourceType, { label: string; icon: string }> = {
  chat: { label: 'Chat', icon: 'comment-discussion' },
  terminal: { label: 'Terminal', icon: 'terminal' },
  manual: { label: 'Manual', icon: 'edit' },
  import: { label: 'Imported', icon: 'cloud-download' },
  meeting_notes: { label: 'Meeting notes', icon: 'notebook' },
  code_comment: { label: 'Code comments', icon: 'code' },
  troubleshooting_log: { label: 'Troubleshooting', icon: 'debug' },
};

/** One field of every row of a table, by the same keys. */
function column<K extends string, R, F extends keyof R>(table: Record<K, R>, field: F): Record<K, R[F]> {
  return Object.fromEntries(Object.entries<R>(table).map(([k, row]) => [k, row[field]])) as Record<K, R[F]>;
}

export const CATEGORY_LABEL = column(CATEGORIES, 'label');
/** One line per category, for pickers and the edit form. */
export const CATEGORY_DETAIL = column(CATEGORIES, 'detail');
export const CATEGORY_ICON = column(CATEGORIES, 'icon');
export const SOURCE_LABEL = column(SOURCES, 'label');
export const SOURCE_ICON = column(SOURCES, 'icon');

/**
 * The codicon (and the theme colour that repeats it) of a memory whose state matters more than its
 * category; undefined for an ordinary active memory (its category icon shows). One shape per state.
 */
export function stateIcon(m: Memory): [icon: string, color: string | undefined] | undefined {
  switch (m.status) {
    case 'wrong':
      return ['error', 'errorForeground'];
    case 'pending':
      return ['inbox', 'charts.yellow'];
    case 'archived':
    case 'superseded':
      return ['archive', 'disabledForeground'];
    default:
      if (m.confidence_score < LOW_CONFIDENCE) return ['question', 'disabledForeground'];
      return m.status === 'confirmed' ? ['verified', undefined] : undefined;
  }
}

export const STATUS_LABEL: Record<MemoryStatus, string> = {
  active: 'active',
  pending: 'pending review',
  confirmed: 'confirmed',
  wrong: 'marked wrong',
  archived: 'archived',
  superseded: 'superseded by a newer fact',
};

/** Who vouches for a memory (its provenance tier), in words: highest first. */
export const TIER_LABEL: Record<Tier, string> = {
  person: 'a person',
  'own-turn': 'your own words in a conversation',
  agent: 'an agent',
  outside: 'outside content (a tool, a page, a file)',
};

/** The tier as a short mark in a tree row: nothing for the two tiers a person spoke. */
const TIER_MARK: Record<Tier, string> = {
  person: '',
  'own-turn': '',
  agent: 'from an agent',
  outside: 'from outside',
};

export function percent(confidence: number): string {
  return `${Math.round(Math.max(0, Math.min(1, confidence)) * 100)}%`;
}

/** The text on one line, cut to `max` characters with an ellipsis. */
/**
 * How a search result matched, in words: its score mixes cosine similarity with BM25 relative to the best
 * hit, so a percentage would read "100%" for a word-only match.
 */
export function matchedBy(channels: SearchResult['items'][number]['channels'] | undefined): string {
  const meaning = channels?.includes('vector') ?? false;
  const words = channels?.includes('lexical') ?? false;
  return meaning && words ? 'by meaning and words' : meaning ? 'by meaning' : words ? 'by words' : '';
}

export function shortText(text: string, max = 70): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The marks a memory carries, as words (used in descriptions and screen-reader labels). */
export function marks(m: Memory): string[] {
  const out: string[] = [];
  if (m.status === 'wrong') out.push('wrong');
  else if (m.status === 'pending') out.push('pending');
  else if (m.status === 'confirmed') out.push('confirmed');
  else if (m.status === 'archived') out.push('archived');
  if (m.held) out.push('held');
  const tier = TIER_MARK[tierOf(m)];
  if (tier) out.push(tier);
  if (m.is_actionable) out.push('actionable');
  if (m.confidence_score < LOW_CONFIDENCE && m.status !== 'wrong') out.push('low confidence');
  return out;
}

/** Why a memory an agent reported wrong is in the review queue. */
export function flagged(m: Memory): string {
  return `reported wrong by ${m.flagged_by}: waiting for your review`;
}

/** `86% · 3 days ago · pending · actionable` */
/** The agent a memory was learned from (its `agent:<id>` reference), by name: "Claude Code". */
export function agentLabel(m: Pick<Memory, 'source_ref'>): string | undefined {
  const id = agentOfRefs(m.source_ref);
  return id ? CAPTURE_SOURCE_LABEL[id] : undefined;
}

export function description(m: Memory, now = Date.now()): string {
  return [percent(m.confidence_score), relativeAge(m.created_at, now), agentLabel(m), ...marks(m)]
    .filter(Boolean)
    .join(' · ');
}

export function accessibilityLabel(m: Memory, now = Date.now()): string {
  const marked = marks(m);
  return `${CATEGORY_LABEL[m.category] ?? m.category} memory: ${shortText(m.text, 200)}. Confidence ${percent(m.confidence_score)}.${marked.length ? ` ${marked.join(', ')}.` : ''} Created ${relativeAge(m.created_at, now)}.`;
}

/** `2026-12-01 10:43 · 3 days ago` with the UTC time for a hover. */
export function when(
  iso: string | undefined,
  timeZone: string | undefined,
  now = Date.now(),
): { text: string; utc: string } {
  const age = relativeAge(iso, now);
  return { text: `${formatLocal(iso, timeZone)}${age ? ` · ${age}` : ''}`, utc: formatUtc(iso) };
}

export interface TooltipContext {
  projectLabel: (projectId: string) => string;
  timeZone: string | undefined;
  now?: number;
}

/** A time as the rows show it: how long ago, in the person's zone, with the UTC time beside it. */
function atTimes(timeZone: string | undefined, now: number): (iso: string | undefined) => string {
  return (iso) => {
    const w = when(iso, timeZone, now);
    return `${w.text} (${w.utc})`;
  };
}

/** The rows of a memory's tooltip, label → value (present.ts renders them as Markdown). */
export function tooltipRows(m: Memory, c: TooltipContext): [string, string][] {
  const now = c.now ?? Date.now();
  const at = atTimes(c.timeZone, now);
  return [
    [
      'Category',
      `${CATEGORY_LABEL[m.category] ?? m.category} · ${SOURCE_LABEL[m.source_type] ?? m.source_type}${agentLabel(m) ? ` · from ${agentLabel(m)}` : ''}`,
    ],
    ...(m.speaker ? ([['Said by', m.speaker]] as [string, string][]) : []),
    [
      'Project',
      c.projectLabel(m.project_id) + (m.promoted_from ? ` (promoted from ${m.promoted_from})` : ''),
    ],
    ['Status', statusInWords(m, at)],
    ['From', TIER_LABEL[tierOf(m)]],
    ...(m.held ? [['Held', m.held.replace(/^held: /, '')] as [string, string]] : []),
    [
      'Confidence',
      `${percent(m.confidence_score)} — how likely it still holds (it fades when unused, rises when confirmed)`,
    ],
    ['Worth', `${m.score.toFixed(1)} of 10 — how useful it looked when it was captured`],
    ['Actionable', m.is_actionable ? 'yes' : 'no'],
    ['Kept because', explainReason(m.reason)],
    ['Source', m.source_ref.length ? m.source_ref.join(', ') : '—'],
    [
      'Seen / used',
      `${m.times_seen}× seen · ${m.use_count}× used${m.last_used_at ? ` (last ${relativeAge(m.last_used_at, now)})` : ''}`,
    ],
    ['Created', at(m.created_at)],
    ['Updated', at(m.updated_at)],
    ['Added by', m.added_by || '—'],
    ['Id', m.id],
  ];
}

/** What a source reference is, in words (the detail view lists each with this). */
export function describeSourceRef(ref: string, isFile: boolean): string {
  if (isFile) return 'a file and line: Open Source opens it';
  const kind = /^([\w-]+):/.exec(ref)?.[1];
  switch (kind) {
    case 'msg':
      return 'a message of the conversation or terminal session it was learned from (below, when kept)';
    case 'terminal':
      return 'the terminal it was captured in';
    case 'cwd':
      return 'the folder the commands ran in';
    case 'file':
      return 'the file it was imported from';
    case 'chat':
      return 'a conversation with @mnemo';
    case 'chat-export':
    case 'vscode-chat-export':
      return 'an imported chat export';
    case 'http':
    case 'https':
      return 'a web page';
    default:
      return 'where it came from';
  }
}

/** What {@link detailRows} needs besides the memory. */
export type DetailContext = TooltipContext & { isFileRef: (ref: string) => boolean };

/**
 * A memory's details, field by field in words — category, status (who marked it wrong or confirmed it),
 * confidence, why it was kept, who and when (local time with UTC), how often it was used — for the details
 * view (views/details.ts).
 */
export function detailRows(m: Memory, c: DetailContext): [string, string][] {
  const at = atTimes(c.timeZone, c.now ?? Date.now());
  return [
    [
      'Category',
      `${CATEGORY_LABEL[m.category] ?? m.category} — ${CATEGORY_DETAIL[m.category] ?? ''} · from ${SOURCE_LABEL[m.source_type] ?? m.source_type}`,
    ],
    ['Status', statusInWords(m, at)],
    [
      'From',
      `${TIER_LABEL[tierOf(m)]} — who vouches for it (a person > your own words > an agent > outside content); recall ranks by it`,
    ],
    ...(m.held
      ? [
          [
            'Held',
            `${m.held.replace(/^held: /, '')} — it waits for you, and its turns are not quoted until you confirm it`,
          ] as [string, string],
        ]
      : []),
    [
      'Confidence',
      `${percent(m.confidence_score)} — how likely it still holds (it fades when unused, rises when confirmed)`,
    ],
    ['Worth', `${m.score.toFixed(1)} of 10 — how useful it looked when it was captured`],
    ['Kept because', explainReason(m.reason)],
    [
      'Actionable',
      m.is_actionable ? 'yes — a step, rule or command an agent can act on' : 'no — background knowledge',
    ],
    [
      'Project',
      `${c.projectLabel(m.project_id)} (${m.project_id})${m.promoted_from ? `, promoted from ${m.promoted_from}` : ''}`,
    ],
    ['Added by', m.added_by || '—'],
    ['Created', at(m.created_at)],
    ['Updated', at(m.updated_at)],
    ['Seen', `${m.times_seen}× (last ${at(m.last_seen_at)})`],
    [
      'Used',
      m.use_count
        ? `${m.use_count}× in an agent's context, last ${at(m.last_used_at)}`
        : 'not yet recalled for an agent',
    ],
    ['Id', m.id],
  ];
}

/** The status with who set it and when: "marked wrong by ed@box, 2026-12-01 10:43 · 2 hours ago (…)". */
function statusInWords(m: Memory, at: (iso: string | undefined) => string): string {
  if (m.status === 'wrong')
    return `marked wrong${m.wrong_by ? ` by ${m.wrong_by}` : ''}, ${at(m.wrong_at ?? m.updated_at)} — never recalled, never learned again`;
  return (
    (STATUS_LABEL[m.status] ?? m.status) +
    (m.confirmed_by ? ` by ${m.confirmed_by}` : '') +
    (m.flagged_by ? ` · ${flagged(m)}` : '')
  );
}

/** Each source of a memory with what it is, in words. */
export function sourceRows(m: Memory, c: Pick<DetailContext, 'isFileRef'>): [string, string][] {
  return m.source_ref.map((ref) => [ref, describeSourceRef(ref, c.isFileRef(ref))]);
}

/** Text safe inside Markdown (no emphasis, links or HTML from a memory's text). */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_{}[\]<>#]/g, '\\$&');
}

/** Text safe inside a Markdown table cell. */
export function markdownCell(text: string): string {
  return markdownText(text).replace(/\|/g, '\\|');
}

/** Marks a turn the memory came from in the detail view (documents.ts highlights these lines). */
export const MATCHED_TURN = '▶';

/**
 * "Where it came from": each session the memory was learned from, its turns with time and speaker, the
 * memory's own turns marked with {@link MATCHED_TURN}; or the evidence's note when there is none.
 */
export function evidenceSection(ev: EvidenceResult, c: { timeZone: string | undefined }): string {
  const lines = ['', 'Where it came from'];
  if (ev.sessions.length === 0) {
    lines.push(`  ${ev.note ?? 'No session recorded.'}`);
    return `${lines.join('\n')}\n`;
  }
  for (const s of ev.sessions) {
    const kind = s.source_type === 'terminal' ? 'Terminal session' : 'Conversation';
    const first = s.turns[0]?.episode.occurred_at;
    const shown =
      s.turns.length < s.total_turns
        ? `${s.turns.length} of ${s.total_turns} turns`
        : `${s.total_turns} turns`;
    lines.push(
      '',
      `  ${kind} ${s.session_id} · ${SOURCE_LABEL[s.source_type] ?? s.source_type} · ${formatLocal(first, c.timeZone)} · ${shown}`,
    );
    if (s.source_ref.length) lines.push(`  from ${s.source_ref.join(', ')}`);
    const width = Math.min(16, Math.max(...s.turns.map((t) => t.episode.speaker.length), 4));
    for (const t of s.turns) {
      const head = `${t.matched ? MATCHED_TURN : ' '} ${formatLocal(t.episode.occurred_at, c.timeZone)}  ${t.episode.speaker.slice(0, width).padEnd(width)}  `;
      const [one, ...rest] = t.episode.text.replace(/\r/g, '').split('\n');
      lines.push(`  ${head}${one}`);
      for (const more of rest)
        lines.push(`  ${t.matched ? MATCHED_TURN : ' '}${' '.repeat(head.length - 1)}${more}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Why a memory near the query was not recalled, in words (Preview Injection). */
export function nearMissReason(
  n: NearMiss,
  c: { topK: number; minConfidence: number; tokenBudget: number; projectLabel: (id: string) => string },
): string {
  switch (n.reason) {
    case 'other_project':
      return `it belongs to ${c.projectLabel(n.memory.project_id)}, a project not open in this workspace (promote it to Global to share it)`;
    case 'not_recallable':
      return n.memory.status === 'pending'
        ? 'it is pending review: it is recalled once confirmed'
        : `it is ${STATUS_LABEL[n.memory.status] ?? n.memory.status}: such memories are never recalled`;
    case 'low_confidence':
      return `its confidence ${percent(n.memory.confidence_score)} is at or under the minimum ${percent(c.minConfidence)}`;
    case 'below_cut':
      return 'it is much less similar than the best match (under the relative cut)';
    case 'beyond_top_k':
      return `more relevant memories filled the ${c.topK} places (mnemo.recall.topK)`;
    case 'over_budget':
      return `it did not fit the token budget of ${c.tokenBudget} (mnemo.recall.tokenBudget)`;
  }
}
