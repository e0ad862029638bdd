/** Types shared by the pipeline stages (normalize -> redact -> rules -> extract -> score -> firewall -> dedup -> store). */
import type { Category, SourceType, Tier, TimeSpan } from '../model';

/** Sessions and their messages are wire types: the contract declares them. */
export type { RawMessage, SessionInput } from '../protocol';

export type Role = 'user' | 'assistant' | 'system' | 'tool';

export interface NormalizedMessage {
  /** The message id given, or `m<index>` when it had none. */
  id: string;
  role: Role;
  /** At most 500 characters (the extraction window per message). */
  content: string;
  /** UTC ISO-8601 with Z. */
  timestamp: string;
  /** Who said it: the message's `name` when given (a person in a multi-party transcript). */
  speaker?: string;
  /** Set when the message had no time of its own: `timestamp` is when it was read, not when it was said. */
  undated?: true;
}

/** Something worth remembering, with the reason that kept it. */
export interface Candidate {
  text: string;
  category: Category;
  source_type: SourceType;
  is_actionable: boolean;
  /** Message ids as `msg:<id>`, plus referenced documents/links/pages. */
  source_ref: string[];
  /** Ids of the messages it came from. */
  message_ids: string[];
  /** The rule (or LLM) that kept it, human readable, e.g. `rule:operational-verb(设置)`. */
  reason: string;
  /** Knowledge value 0..10 (score stage). */
  score: number;
  /** Initial confidence 0..1 derived from score. */
  confidence: number;
  /** true: goes to the review queue instead of straight into recall. */
  pending: boolean;
  pending_reason?: string;
  /** What the rule stage saw (added by rules, read by score); absent on candidates from elsewhere. */
  features?: CandidateFeatures;
  /** Who said it (attribute stage): the message's speaker in a named transcript. */
  speaker?: string;
  /** UTC time of the message it came from (attribute stage). */
  occurred_at?: string;
  /** Times the text mentions, resolved against {@link occurred_at} (attribute stage). */
  times?: TimeSpan[];
  /** Who vouches for it (firewall stage: the lowest tier of its messages; never raised). */
  tier?: Tier;
  /** Why the firewall held it for review (firewall stage); it is then `pending` too. */
  held?: string;
  /**
   * How a terminal-fix candidate's failure ended (terminal stage): a changed command passed (`changed`), the
   * same command passed again (`retry`), or other commands ran before it passed (`steps`).
   */
  fix?: 'changed' | 'retry' | 'steps';
}

/** A session's messages as the firewall stage saw them: each one's tier, and why the held ones are held. */
export interface Guard {
  tiers: Map<string, Tier>;
  held: Map<string, string>;
}

/** Rule features of a candidate, the inputs of the default scorer. */
export interface CandidateFeatures {
  /** Role of the message the sentence came from. */
  role: Role;
  /** Id of the rule that kept it, e.g. `operational-verb`. */
  rule: string;
  /** The user asked for it to be remembered ("请记录", "remember that"). */
  explicit_request: boolean;
  /** The request phrase that was stripped, when explicit. */
  request_phrase?: string;
  /** Contains a number (value, port, version; not dates or ids glued to letters). */
  has_number: boolean;
  /** Cognitive (确认, verified) or operational (设置, restart) verb, if any. */
  verb_kind?: 'cognitive' | 'operational';
  verb?: string;
  /** Technical terms seen (identifiers, acronyms, 阈值/端口...). */
  tech_terms: number;
  /** Venting marker present (but the sentence had enough content to be kept). */
  vent: boolean;
  /** A hard compatibility/necessity claim with no evidence (docs/design.md, memory pollution). */
  unverified_claim: boolean;
  /** Length of the kept text in characters. */
  length: number;
  /** Letters and digits, a Chinese character counting 2 (information density differs). */
  weighted_length?: number;
}

export interface Dropped {
  text: string;
  /** The rule that dropped it, e.g. `drop:hedge(可能)`. */
  reason: string;
  message_id?: string;
}

export interface AnalyzeResult {
  candidates: Candidate[];
  dropped: Dropped[];
  /** Every message of the session, redacted, whole: kept as episodes (a long one in parts). */
  episodes: NormalizedMessage[];
  /** Messages with no text after cleaning: nothing to read (every other message was read whole). */
  empty: number;
  /** Set when the whole session was skipped (e.g. fewer than 2 substantive lines). */
  skipped?: string;
  /** What the redact stage replaced, summed over the session (never the secrets themselves). */
  redactions?: RedactionFinding[];
  /** The firewall stage's view of the messages: each one's tier and why the held ones are held. */
  guard: Guard;
  /** The rules' chatter class of each message all of whose sentences they dropped as chatter (episodes). */
  chatter: Map<string, string>;
}

/** One kind of secret or personal data replaced by `[REDACTED:<type>]`, and how often. */
export interface RedactionFinding {
  type: string;
  count: number;
}
