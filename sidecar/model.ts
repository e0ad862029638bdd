/**
 * The one memory schema (docs/schema.md). Everything the sidecar stores, returns or exports is a
 * {@link Memory}; Chroma metadata holds the same fields flattened (arrays JSON-encoded).
 */
import { createHash } from 'node:crypto';

export const CATEGORIES = ['persona', 'episodic', 'instruction'] as const;
/** persona: preferences, habits, identity; episodic: events and actions; instruction: workflows, rules, corrections, technical decisions. */
export type Category = (typeof CATEGORIES)[number];

export const SOURCE_TYPES = [
  'chat',
  'terminal',
  'manual',
  'import',
  'meeting_notes',
  'code_comment',
  'troubleshooting_log',
] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const STATUSES = ['active', 'pending', 'confirmed', 'wrong', 'archived', 'superseded'] as const;
/**
 * active: stored and recallable; pending: waiting in the review queue (not recalled);
 * confirmed: a person vouched for it; wrong: a tombstone (never recalled, blocks re-learning);
 * archived: decayed under the floor or cleaned (kept, never recalled);
 * superseded: a newer memory changed this fact (`superseded_by`; kept for history, never recalled).
 */
export type MemoryStatus = (typeof STATUSES)[number];

/**
 * Provenance tiers, highest first (docs/design.md, "Trust"): who vouches for a text. `person`: typed,
 * confirmed or edited by a person in the editor or the CLI; `own-turn`: the person's own turn in a
 * conversation (a user message, a command they typed); `agent`: an agent's assertion (an assistant turn,
 * what an agent asked Mnemo to remember); `outside`: content that came from outside (tool results, command
 * output, fetched pages, files an agent read, imported rules files, a backup's unvouched records). Set at
 * capture by the sidecar and never raised by an agent; a person confirming or editing a memory raises it to
 * `person`.
 */
export const TIERS = ['person', 'own-turn', 'agent', 'outside'] as const;
export type Tier = (typeof TIERS)[number];

export function isTier(v: unknown): v is Tier {
  return typeof v === 'string' && (TIERS as readonly string[]).includes(v);
}

/** 3 for `person` down to 0 for `outside`: higher is more trusted. */
export function tierRank(t: Tier): number {
  return TIERS.length - 1 - TIERS.indexOf(t);
}

/** The lower of two tiers (a text is only as trusted as its least trusted source). */
export function lowerTier(a: Tier, b: Tier): Tier {
  return tierRank(a) <= tierRank(b) ? a : b;
}

/** A turn's tier by who said it: the person, an assistant, or a tool / the system (outside). */
export function tierOfRole(role: string): Tier {
  return role === 'user' ? 'own-turn' : role === 'assistant' ? 'agent' : 'outside';
}

/**
 * A memory's tier: its own, else (stored before tiers) what its provenance says: confirmed by a person,
 * added by an agent, imported, or learnt from a conversation (the person's own turn, the most it can be).
 */
export function tierOf(
  m: Pick<Memory, 'tier' | 'status' | 'confirmed_by' | 'added_by' | 'source_type'>,
): Tier {
  if (m.tier) return m.tier;
  if (m.status === 'confirmed' && m.confirmed_by && !isAgentName(m.confirmed_by)) return 'person';
  if (isAgentName(m.added_by)) return 'agent';
  if (m.source_type === 'import') return 'outside';
  if (m.source_type === 'manual') return 'person';
  return 'own-turn';
}

/** Whether a name (`added_by`, `confirmed_by`, `by`) is an agent's: `agent`, `agent:<client>`. */
export function isAgentName(name: string | undefined): boolean {
  return !!name && /^agent(?::|$)/.test(name);
}

/** The project id under which promoted memories live; recalled in every project. */
export const GLOBAL_PROJECT = 'global';

/** The longest memory text (UTF-16 units): a longer text given to remember or import is cut, and the result says so. */
export const MAX_MEMORY_CHARS = 2000;

/** How many capture ids a memory remembers (see {@link Memory.captures}). */
export const MAX_CAPTURE_IDS = 8;

/** The capture ids a memory was written by. */
export function capturesOf(m: Pick<Memory, 'captures'>): string[] {
  return m.captures ? m.captures.split(' ').filter(Boolean) : [];
}

/** `captures` with this capture id added (the oldest dropped past {@link MAX_CAPTURE_IDS}). */
export function withCapture(m: Pick<Memory, 'captures'>, captureId: string | undefined): string | undefined {
  if (!captureId) return m.captures;
  return [...capturesOf(m).filter((c) => c !== captureId), captureId].slice(-MAX_CAPTURE_IDS).join(' ');
}

export interface Memory {
  /** Stable: `mem_` + 16 hex of sha256(project_id + normalized text). */
  id: string;
  text: string;
  category: Category;
  source_type: SourceType;
  project_id: string;
  /** 0..1 */
  confidence_score: number;
  is_actionable: boolean;
  /** Where it came from: message ids (`msg:<id>`), a command, file:line, a document or page. */
  source_ref: string[];
  status: MemoryStatus;
  /** UTC ISO-8601 with `Z`. */
  created_at: string;
  updated_at: string;
  /** Last time the same fact was seen again (dedup refresh). */
  last_seen_at: string;
  times_seen: number;
  /** user@machine (or the agent) that added it. */
  added_by: string;
  /** The rule or reason that kept it (pipeline explanation). */
  reason: string;
  /** Knowledge-value score 0..10 given by the score stage. */
  score: number;
  embedding_model: string;
  embedding_dim: number;
  confirmed_by?: string;
  last_used_at?: string;
  use_count: number;
  /** UTC instant monthly decay has been applied through (its anchor); absent = created_at. */
  decayed_through?: string;
  /** Set when the text was promoted from a project to global. */
  promoted_from?: string;
  /** When marked wrong by someone other than its confirmer: who must be told (cleared once they saw it). */
  notify_user?: string;
  /** Who marked it wrong, and when (UTC). */
  wrong_by?: string;
  wrong_at?: string;
  /** The newer memory that changed this fact (status superseded). */
  superseded_by?: string;
  /** The older memory this one changed. */
  supersedes?: string;
  /** Pending: the older memory this one may change (dedup was unsure); confirming it supersedes that one. */
  may_change?: string;
  /** The pending memory that may change this one: in review beside it, still recalled until decided. */
  contested_by?: string;
  /**
   * Who reported it wrong without being able to decide it (`agent:<client>`): in the review queue until a
   * person confirms it (which clears this) or marks it wrong; recalled meanwhile at its confidence.
   */
  flagged_by?: string;
  /**
   * The durable queue ids of the last captures that created or refreshed it (space-separated, newest
   * last, at most {@link MAX_CAPTURE_IDS}): a capture replayed after a crash changes no counter twice.
   */
  captures?: string;
  /** Who said it, when the transcript named its speakers. */
  speaker?: string;
  /** UTC time of the message it came from (absent: only the ingest time is known). */
  occurred_at?: string;
  /** Times the text mentions ("yesterday", "上周"), resolved against {@link occurred_at}. */
  times?: TimeSpan[];
  /** Who vouches for the text ({@link Tier}); absent on memories stored before tiers ({@link tierOf}). */
  tier?: Tier;
  /**
   * Why the write-time firewall held it for review, in words (pipeline/firewall.ts): instruction-shaped text
   * from below the `person` tier. Cleared when a person confirms or edits it.
   */
  held?: string;
  /** When a person last changed its text: turns said before it are not quoted as the current fact. */
  edited_at?: string;
}

/** A time a message mentions, resolved to a UTC calendar date or range. */
export interface TimeSpan {
  /** The words, e.g. "last summer". */
  text: string;
  /** `YYYY-MM-DD`, first and last day (equal for one day). */
  start: string;
  end: string;
}

/**
 * One turn of an ingested session, kept verbatim (redacted): the evidence memories point to. Stored in
 * its own collection per embedding model; never recalled outside its project.
 */
export interface Episode {
  /** Stable: `ep_` + 16 hex of sha256(project, session, message id, text). */
  id: string;
  project_id: string;
  session_id: string;
  /** The message id as given at ingest (`msg:<id>` in {@link source_ref}). */
  message_id: string;
  role: string;
  /** The message's `name`, else its role. */
  speaker: string;
  text: string;
  /** The message's own UTC time (else the ingest time). */
  occurred_at: string;
  source_type: SourceType;
  /** `msg:<id>` plus the session's refs (file, terminal, export). */
  source_ref: string[];
  times: TimeSpan[];
  /** Memories derived from this turn. */
  memory_ids: string[];
  created_at: string;
  /**
   * The episode said just before this one in its session, as ingested (`''` for the first turn). Absent on
   * episodes kept before Mnemo recorded it; recall then finds the neighbour by time (recall/context.ts).
   */
  previous_id?: string;
  /** The episode said just after this one in its session (`''` for the last turn); absent as {@link previous_id}. */
  next_id?: string;
  /** Who said it ({@link Tier}, from its role); absent on turns kept before tiers ({@link tierOfRole}). */
  tier?: Tier;
  /**
   * Why the write-time firewall held the turn (pipeline/firewall.ts): it is not quoted as evidence until a
   * person confirms a memory taken from it.
   */
  held?: string;
  /**
   * The rules' class of a turn every sentence of which they dropped as chatter (`venting`, `small-talk`,
   * `hedge`, `passing`, `status-chatter`, `too-short`): quoted only when a question is about that.
   */
  chatter?: string;
  /**
   * How many earlier turns (or parts of a long turn) of its session have the same message id and text:
   * part of the id (see {@link episodeId}). Absent for the first, which is nearly every turn.
   */
  occurrence?: number;
}

/**
 * An episode's id: its project, session, message and text, and (from the second on) its {@link
 * Episode.occurrence}: ids from content alone collide on repeated content (a pasted log that repeats a
 * line splits into identical parts of one message).
 */
export function episodeId(
  projectId: string,
  sessionId: string,
  messageId: string,
  text: string,
  occurrence = 0,
): string {
  const h = createHash('sha256')
    .update(`${projectId}\u0000${sessionId}\u0000${messageId}\u0000${normalizeText(text)}`)
    .update(occurrence > 0 ? `\u0000${occurrence}` : '')
    .digest('hex');
  return `ep_${h.slice(0, 16)}`;
}

/** Lower-case, collapse whitespace, drop trailing punctuation: the identity of a fact's text. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.。!！?？,，;；:：]+$/u, '')
    .trim();
}

export function memoryId(projectId: string, text: string): string {
  const h = createHash('sha256')
    .update(`${projectId}\u0000${normalizeText(text)}`)
    .digest('hex');
  return `mem_${h.slice(0, 16)}`;
}

export function nowUtc(clock: () => Date = () => new Date()): string {
  return clock().toISOString();
}

export function isCategory(v: unknown): v is Category {
  return typeof v === 'string' && (CATEGORIES as readonly string[]).includes(v);
}
export function isSourceType(v: unknown): v is SourceType {
  return typeof v === 'string' && (SOURCE_TYPES as readonly string[]).includes(v);
}
export function isStatus(v: unknown): v is MemoryStatus {
  return typeof v === 'string' && (STATUSES as readonly string[]).includes(v);
}
