/**
 * THE contract between the extension and the sidecar. One constant per message, namespaced
 * `mnemo/<noun>/<verb>`, each with a JSDoc line saying who sends it and why. Every message is documented
 * in docs/protocol.md (a unit test enforces it). A leaf: it imports `vscode-jsonrpc` and the data model
 * only, and every type that crosses the wire is declared here, never borrowed from an implementation
 * (test/unit/architecture.test.ts enforces it).
 *
 * Casing: message fields are snake_case, like the stored memory (`project_id`, `top_k`,
 * `progress_token`); the settings inside {@link InitializationOptions} keep the names of their
 * `mnemo.*` settings in package.json (`dedupDistance`, `confirmedFactor`, `schedule`), never renamed.
 */
import { NotificationType, RequestType } from 'vscode-jsonrpc';
import type { Category, Episode, Memory, MemoryStatus, SourceType, Tier } from './model';

// ---------------------------------------------------------------- sessions

/** A message as it arrives (transcript file, chat export, terminal capture). */
export interface RawMessage {
  role: string;
  content: string;
  name?: string;
  id?: string;
  /** ISO-8601 (any offset) or epoch millis. */
  timestamp?: string | number;
}

/** One session to learn from. */
export interface SessionInput {
  project_id: string;
  source_type: SourceType;
  messages: RawMessage[];
  /** Refs that apply to the whole session (file, terminal name, export file). */
  source_ref?: string[];
  added_by?: string;
  session_id?: string;
}

/**
 * One finished terminal command as the extension captures it. A terminal session (source_type
 * `terminal`) carries each as two messages, written and read by sidecar/shared/terminal.ts only:
 * `$ <command>` (role user) and `exit <code|unknown> · <output>` (role tool). The sidecar's terminal stage
 * decides which failures were fixed (docs/design.md); the extension does not.
 */
export interface TerminalCommandRecord {
  command: string;
  /** Absent when the shell did not report one. */
  exit_code?: number;
  /** ANSI-stripped and bounded by `mnemo.capture.terminal.maxOutputBytes`. */
  output: string;
  /** UTC ISO-8601. */
  started_at?: string;
  ended_at?: string;
}

// ---------------------------------------------------------------- shared shapes

export type Health = 'ok' | 'warning' | 'error';

export interface StatusParams {
  health: Health;
  /** One sentence a person understands, e.g. "Embedding model not found: set mnemo.embedding.modelPath." */
  message: string;
  /** Memories stored (all projects), when known. */
  memory_count?: number;
  /** Memories waiting in the review queue, when known. */
  pending_count?: number;
  /** Captures waiting in the durable queue. */
  queued?: number;
}

export interface MemoriesChangedParams {
  /** Projects whose memories changed; the tree refreshes only these subtrees. */
  project_ids: string[];
  /** Ids that changed, when known. */
  ids?: string[];
}

export interface ProgressParams {
  /** The token the request was given (`progress_token`). */
  token: string;
  message: string;
  /** 0..100 when known. */
  percent?: number;
}

/** What happened to one candidate during ingest (for `--explain` and the extension's output). */
export interface IngestDecision {
  text: string;
  /** stored: new memory; refreshed: duplicate of an existing one; pending: stored for review; dropped: not kept. */
  outcome: 'stored' | 'refreshed' | 'pending' | 'dropped';
  /** The rule or reason. */
  reason: string;
  id?: string;
  category?: Category;
  is_actionable?: boolean;
  source_ref?: string[];
  score?: number;
  /** Set when the text given was longer than a memory holds and was cut (remember, import): characters kept and given. */
  truncated?: { kept: number; total: number };
}

export interface IngestReport {
  project_id: string;
  decisions: IngestDecision[];
  stored: number;
  refreshed: number;
  pending: number;
  dropped: number;
  /** Set when the whole session was skipped (its turns are still kept as episodes). */
  skipped?: string;
  /** How many turns were kept as episodes (the evidence), when episodes are on. */
  episodes?: number;
  /**
   * Set (one sentence) when the memories were stored but the turns could not be kept as episodes: a partial
   * result, reported and logged; the session is not retried or dropped for it.
   */
  episodes_error?: string;
  /** Messages read, each whole: a long transcript is read to its end, never cut. */
  messages_read: number;
  /** Messages with no text (after removing control and escape codes): nothing to read in them. */
  messages_empty: number;
  /** Messages cut to the most of one message Mnemo keeps, as {@link CaptureResult.messages_cut}; absent when none was. */
  messages_cut?: number;
  /** When an LLM extracts too: how many windows of the transcript it was sent (all of them, one call each). */
  llm_windows?: number;
}

/** How recall found an item: embeddings, BM25 over the words, or the entities of a recent troubleshooting log. */
export type RecallChannel = 'vector' | 'lexical' | 'rule';

export interface RecallItem {
  /** `memory`: a curated memory. `evidence`: a turn of a past session, quoted as it was said (an episode). */
  kind: 'memory' | 'evidence';
  /** The memory; for evidence, the turn shown as one (id `ep_…`, text "speaker: text", category episodic). */
  memory: Memory;
  /** For evidence: the turn itself, with its speaker, time and the memories derived from it. */
  episode?: Episode;
  /**
   * For evidence quoted with its context: every turn the excerpt quotes, in the order said — `episode` and
   * the adjacent turn (the reply to a turn that asks, or the question a short reply answers: same session,
   * the other speaker, within 30 minutes). Their text is in the block and in `memory.text`, and each one's
   * `msg:<id>` in `source_ref`. Absent when the excerpt quotes `episode` alone.
   */
  turns?: Episode[];
  /** Cosine similarity 0..1 when the vector channel found it, else the lexical score relative to the best (0..1) or the rule score. */
  score: number;
  /** The strongest channel that found it (vector, then lexical, then rule). */
  channel: RecallChannel;
  /** Every channel that found it. */
  channels: RecallChannel[];
  /** `msg:<id>` of the messages it came from, exactly as given at ingest, and any file or session refs. */
  source_ref: string[];
}

/** Why a memory near the query was not recalled (`explain`). */
export type NearMissReason =
  | 'below_cut'
  | 'other_project'
  | 'not_recallable'
  | 'low_confidence'
  | 'beyond_top_k'
  | 'over_budget';

export interface NearMiss {
  memory: Memory;
  /** Cosine similarity 0..1 to the query. */
  score: number;
  reason: NearMissReason;
}

export interface RecallResult {
  items: RecallItem[];
  /** With `explain`: memories near the query that were left out, nearest first, each with why. */
  near_misses?: NearMiss[];
  /** The injection block, formatted under the token budget. */
  block: string;
  /** Estimated tokens of the block. */
  tokens: number;
}

export interface MemoryFilter {
  project_id?: string;
  /** Include memories promoted to global: default false for a listing or count of a project, true for a search (store/projectScope.ts). */
  include_global?: boolean;
  status?: MemoryStatus[];
  category?: Category;
  source_type?: SourceType;
  /** UTC ISO lower bound on created_at. */
  since?: string;
  /** UTC ISO upper bound on created_at. */
  until?: string;
  /** Only memories with confidence_score strictly below. */
  max_confidence?: number;
  /** Only memories with confidence_score strictly above. */
  min_confidence?: number;
  is_actionable?: boolean;
  /** The review queue: pending memories and the older memories a pending one may change (those stay recalled until decided). */
  in_review?: boolean;
}

export interface ProjectStats {
  project_id: string;
  /** Memories in use: active, pending and confirmed (what the status bar and the tree count). */
  total: number;
  /** Wrong and archived memories, counted apart (none of the other numbers includes them). */
  retired: number;
  /** Created in the last 7 days (UTC instants, independent of time zone). */
  new_7d: number;
  actionable: number;
  pending: number;
  by_status: Record<MemoryStatus, number>;
  by_category: Record<Category, number>;
  /** Ten buckets of confidence: [0,0.1), [0.1,0.2) ... [0.9,1]. */
  confidence_histogram: number[];
}

export interface StatsResult {
  projects: ProjectStats[];
  /** Memories in use over the projects listed. */
  total: number;
  /** Wrong and archived memories over the projects listed. */
  retired: number;
  queued: number;
  embedding_model: string;
  embedding_ready: boolean;
  chroma: string;
  /** LLM token usage since the store was created. */
  llm_tokens?: { prompt: number; completion: number; extractions: number };
}

export interface AuditEntry {
  /** UTC ISO-8601 with Z. */
  at: string;
  action:
    | 'create'
    | 'update'
    | 'confirm'
    | 'wrong'
    | 'delete'
    | 'decay'
    | 'archive'
    | 'refresh'
    | 'promote'
    | 'import'
    | 'export'
    | 'report';
  memory_id?: string;
  project_id?: string;
  /** user@machine */
  by: string;
  /** Per changed field: [before, after]. */
  changes?: Record<string, [unknown, unknown]>;
  note?: string;
  /** The durable queue id of the capture whose processing wrote this entry (a replay after a crash checks it). */
  capture_id?: string;
}

// ---------------------------------------------------------------- notifications (sidecar -> extension)

/** Sidecar -> extension: health and counts, drives the status bar item. */
export const StatusNotification = new NotificationType<StatusParams>('mnemo/status');
/** Sidecar -> extension: memories of these projects changed; refresh those subtrees. */
export const MemoriesChangedNotification = new NotificationType<MemoriesChangedParams>(
  'mnemo/memories/changed',
);
export interface LogParams {
  /** error: something failed (shown as an error in the output channel); warn: degraded, retried; info: what happened. */
  level: 'error' | 'warn' | 'info';
  /** One line, never a secret. */
  message: string;
}
/** Sidecar -> extension: one line of the sidecar's log, at its level (the extension's LogOutputChannel shows it so). */
export const LogNotification = new NotificationType<LogParams>('mnemo/log');
/** Sidecar -> extension: progress of a long request that was given a progress_token. */
export const ProgressNotification = new NotificationType<ProgressParams>('mnemo/progress');

/** What a processed capture taught: the counts, and why when nothing was kept. */
export interface CaptureProcessedParams {
  /** The id {@link CaptureResult.queue_id} gave when the session was queued. */
  queue_id: string;
  project_id: string;
  source_type: SourceType;
  stored: number;
  refreshed: number;
  pending: number;
  dropped: number;
  messages_read: number;
  /** Set when the whole session was skipped, with the pipeline's reason. */
  skipped?: string;
  /** Up to five of the dropped candidates with the rule that dropped each (redacted, cut to 160 characters). */
  dropped_sample: { text: string; reason: string }[];
}
/** Sidecar -> extension: a queued capture was processed (never sent for a capture that failed and stays queued). */
export const CaptureProcessedNotification = new NotificationType<CaptureProcessedParams>(
  'mnemo/capture/processed',
);

// ---------------------------------------------------------------- requests (extension/CLI -> sidecar)

export interface CaptureResult {
  /** Id of the queue entry; the capture is on disk when this returns. */
  queue_id: string;
  /** Number of secrets/personal data items redacted before it reached disk. */
  redactions: number;
  /**
   * Messages longer than 200,000 characters, cut to their first 150,000 and last 49,000 with a note between
   * (docs/limits.md); absent when none was.
   */
  messages_cut?: number;
}
/** Extension -> sidecar: a captured chat or terminal session; redacted, appended to the durable queue, processed in the background. */
/**
 * A session to capture. `live`: a conversation going on (the editor's chat, the person's terminal), learned
 * before the captures queued ahead of it (an import, a backfill), after those of its own session.
 */
export interface CaptureSessionParams extends SessionInput {
  live?: boolean;
}

export const CaptureSessionRequest = new RequestType<CaptureSessionParams, CaptureResult, void>(
  'mnemo/capture/session',
);

export interface IngestParams extends SessionInput {
  /** Include dropped candidates and reasons in the report (default true). */
  explain?: boolean;
}
/** CLI/extension -> sidecar: process a session now (synchronously) and report every decision. */
export const IngestRequest = new RequestType<IngestParams, IngestReport, void>('mnemo/ingest/session');

export interface RememberParams {
  text: string;
  project_id: string;
  category?: Category;
  source_type?: SourceType;
  source_ref?: string[];
  added_by?: string;
  /** Explicit "remember this" from a person is stored as confirmed unless pending is requested. */
  pending?: boolean;
  /**
   * Who vouches for the text (model.ts `Tier`): default `person`, or `agent` when pending. Never raised by
   * the sidecar's own rules: an `agent…` added_by is at most `agent`. Below `person`, instruction-shaped
   * text is held for review (pipeline/firewall.ts).
   */
  tier?: Tier;
}
/** Extension/agent tool -> sidecar: remember one explicit fact (redacted first). */
export const RememberRequest = new RequestType<RememberParams, IngestDecision, void>('mnemo/memory/remember');

/** What a rules file is: a repository's instructions (AGENTS.md, …) or an agent's memory file. */
export type RuleSourceKind = 'instructions' | 'agent-memory';

/** A rules file found by the extension or the CLI (sidecar/shared/ruleSources.ts), to be read by the sidecar. */
export interface RuleSource {
  /** Absolute path. */
  file: string;
  /** The folder the file must really be in (after following links): the project, or the memory folder. */
  root: string;
  /** How it is named in provenance: relative to the project folder, else absolute. */
  ref: string;
  kind: RuleSourceKind;
  /** The project its rules belong to (`global` for the user's own agent memory). */
  project_id: string;
}

export interface RulesImportParams {
  sources: RuleSource[];
  /** user@machine of the person importing. */
  by?: string;
}

export interface RulesImportItem {
  source_ref: string;
  text: string;
  outcome: IngestDecision['outcome'] | 'unchanged' | 'refused';
  id?: string;
  reason: string;
}

export interface RulesImportResult {
  /** The files read, as named in provenance. */
  files: string[];
  /** Files not read, each with why (a link out of its folder, not a regular file, too large). */
  refused_files: { file: string; reason: string }[];
  /** Rules past the per-file limit, not imported. */
  skipped_rules: number;
  stored: number;
  pending: number;
  refreshed: number;
  unchanged: number;
  refused: number;
  items: RulesImportItem[];
}
/**
 * Extension -> sidecar: import the rules of these files ("Import Agent Rules…"). The extension finds the
 * files; the sidecar reads them within bounds, gates, redacts and stores each rule pending for review.
 */
export const RulesImportRequest = new RequestType<RulesImportParams, RulesImportResult, void>(
  'mnemo/rules/import',
);

export interface RecallParams {
  query: string;
  /** The projects of the current workspace; global memories are always included. */
  project_ids: string[];
  /** Default 3. */
  top_k?: number;
  /** Default 0.6: only memories with confidence above. */
  min_confidence?: number;
  /** Token budget of the injection block, default 800. */
  token_budget?: number;
  /** Vector hits under this cosine similarity are dropped as noise, default 0.3. */
  min_similarity?: number;
  /** 'zh' or 'en' labels in the block (default 'en'). */
  locale?: string;
  /** Mark recalled memories as used (default true). */
  mark_used?: boolean;
  /** Also return the nearest memories that were not recalled, each with the reason (default false; previews). */
  explain?: boolean;
  /**
   * Only memories and turns of this provenance tier or higher (model.ts `Tier`: person > own-turn > agent >
   * outside). Default: every tier (each ranked by its tier).
   */
  min_tier?: Tier;
  /** Who the block is served to, recorded in the ledger (absent: `{ surface: 'other', name: 'unknown' }`). */
  served_to?: ServedTo;
}
/** Extension/agent/CLI -> sidecar: recall memories for a query and format the injection block. */
export const RecallRequest = new RequestType<RecallParams, RecallResult, void>('mnemo/memory/recall');

export interface ListParams extends MemoryFilter {
  limit?: number;
  offset?: number;
  /** Order: `newest` (default), `oldest`, `confidence` (highest first) or `used` (most used first). */
  sort?: 'newest' | 'oldest' | 'confidence' | 'used';
}
export interface ListResult {
  items: Memory[];
  total: number;
}
/** Extension/CLI -> sidecar: list memories matching a filter, newest first unless `sort` says otherwise. */
export const ListRequest = new RequestType<ListParams, ListResult, void>('mnemo/memory/list');

/** One group of `mnemo/memory/counts`: how many memories share a project, status, category and source type. */
export interface CountGroup {
  project_id: string;
  status: MemoryStatus;
  category: Category;
  source_type: SourceType;
  count: number;
}
export interface CountsResult {
  /** Memories matching the filter (the sum of the groups). */
  total: number;
  /** Non-empty groups only, in no particular order. */
  groups: CountGroup[];
}
/** Extension -> sidecar: how many memories match a filter, grouped (the tree's and status bar's numbers; no texts). */
export const CountsRequest = new RequestType<MemoryFilter, CountsResult, void>('mnemo/memory/counts');

/** Extension/CLI -> sidecar: one memory by id (error if unknown). */
export const GetRequest = new RequestType<{ id: string }, Memory, void>('mnemo/memory/get');

export interface EvidenceParams {
  /** The memory whose sources to show. */
  id: string;
  /** Turns shown per session around the memory's own (default 12). */
  context?: number;
}
export interface EvidenceTurn {
  episode: Episode;
  /** The memory came from this turn (its `msg:<id>`, or the turn links to the memory). */
  matched: boolean;
}
export interface EvidenceSession {
  session_id: string;
  source_type: SourceType;
  /** The session's own references (file, terminal, export), without the `msg:` ones. */
  source_ref: string[];
  /** The matched turns with up to `context` turns around them, oldest first. */
  turns: EvidenceTurn[];
  /** Turns of the whole session (more than `turns` when it was cut). */
  total_turns: number;
}
export interface EvidenceResult {
  memory_id: string;
  /** The sessions the memory was learned from, oldest first; empty when none were kept. */
  sessions: EvidenceSession[];
  /** Why there is nothing to show, in one sentence (episodes off, pruned, or a memory written by hand). */
  note?: string;
}
/** Extension/CLI -> sidecar: the conversation or terminal session turns a memory came from (its evidence). */
export const EvidenceRequest = new RequestType<EvidenceParams, EvidenceResult, void>('mnemo/memory/evidence');

export interface SearchParams extends MemoryFilter {
  query: string;
  /** `hybrid`: by meaning and by words, fused, cut relative to the best; `keyword` works without the model. */
  mode: 'keyword' | 'semantic' | 'hybrid';
  limit?: number;
  /** Several projects at once (the workspace's); wins over `project_id`. Global is added unless include_global is false. */
  project_ids?: string[];
}
export interface SearchResult {
  /**
   * `score`: cosine similarity when found by meaning, else the share of the best BM25 score (hybrid) or of
   * the query's words (keyword) — not comparable across channels, so people are shown `channels` instead.
   * `channels`: how it matched — `vector` by meaning, `lexical` by words (keyword mode: always lexical).
   */
  items: { memory: Memory; score: number; channels: Exclude<RecallChannel, 'rule'>[] }[];
}
/** Extension/CLI -> sidecar: search by keyword (works without the model), by meaning, or both (hybrid). */
export const SearchRequest = new RequestType<SearchParams, SearchResult, void>('mnemo/memory/search');

export interface FeedbackParams {
  id: string;
  /** Who gives the feedback, user@machine (default: the sidecar's user). */
  by?: string;
}
/** Extension/CLI -> sidecar: a person confirms a memory (status confirmed, confidence raised). */
export const ConfirmRequest = new RequestType<FeedbackParams, Memory, void>('mnemo/memory/confirm');
/** Extension/CLI -> sidecar: a memory is wrong (confidence 0, tombstone that blocks re-learning). */
export const MarkWrongRequest = new RequestType<FeedbackParams, Memory, void>('mnemo/memory/markWrong');

export interface ConfirmFileParams {
  /** The project of the memories ("global" for a VS Code user memory file's). */
  project_id: string;
  /** The file as its memories cite it, `file:<file>#L<line>` (e.g. `AGENTS.md`, `.cursor/rules/style.md`). */
  file: string;
  by?: string;
}
export interface ConfirmFileResult {
  /** Pending memories of the file now confirmed. */
  confirmed: string[];
  /** Pending memories of the file the firewall held: each waits for a confirmation of its own. */
  held: string[];
}
/** Extension/CLI -> sidecar: a person confirms every pending rule imported from one file ("Confirm All from AGENTS.md"), except what the firewall held. */
export const ConfirmFileRequest = new RequestType<ConfirmFileParams, ConfirmFileResult, void>(
  'mnemo/memory/confirmFile',
);

export interface UpdateParams {
  id: string;
  patch: Partial<
    Pick<Memory, 'text' | 'confidence_score' | 'is_actionable' | 'source_ref' | 'category' | 'status'>
  >;
  by?: string;
}
/** Extension/CLI -> sidecar: edit a memory (text is re-embedded). */
export const UpdateRequest = new RequestType<UpdateParams, Memory, void>('mnemo/memory/update');

/** Extension/CLI -> sidecar: promote a memory to global (visible in every project); audited. */
export const PromoteRequest = new RequestType<FeedbackParams, Memory, void>('mnemo/memory/promote');

export interface WipeProjectParams {
  project_id: string;
  /** Who wipes it, user@machine (default: the sidecar's user). */
  by?: string;
}
export interface WipeProjectResult {
  /** Memories deleted (every status). */
  memories: number;
  /** Episodes (kept turns) deleted. */
  episodes: number;
}
/** Extension/CLI -> sidecar: delete everything of one project for good — memories, episodes, their lexical rows (audited, content erased). */
export const WipeProjectRequest = new RequestType<WipeProjectParams, WipeProjectResult, void>(
  'mnemo/project/wipe',
);

/** Extension/CLI -> sidecar: delete memories for good (audited). */
export const DeleteRequest = new RequestType<{ ids: string[]; by?: string }, { deleted: number }, void>(
  'mnemo/memory/delete',
);

/** Extension/CLI -> sidecar: statistics per project (dashboard, status bar, `mnemo stats`). */
export const StatsRequest = new RequestType<{ project_id?: string }, StatsResult, void>('mnemo/stats/get');

/** Extension/CLI -> sidecar: the audit log of a memory or a project, newest first. */
export const AuditListRequest = new RequestType<
  { memory_id?: string; project_id?: string; limit?: number },
  { entries: AuditEntry[] },
  void
>('mnemo/audit/list');

// ---------------------------------------------------------------- the ledger of what agents were shown

/**
 * Where a recall was served: an MCP client (`mcp`), VS Code's language model tool (`lm-tool`), the
 * `@mnemo` chat participant (`chat`), Preview Injection (`preview`), `mnemo recall` (`cli`); `other`
 * when the caller did not say.
 */
export type LedgerSurface = 'mcp' | 'lm-tool' | 'chat' | 'preview' | 'cli' | 'other';

/** Who a recall is served to, as the ledger records it. */
export interface ServedTo {
  surface: LedgerSurface;
  /** The client: MCP `clientInfo.name`, `VS Code chat` (the LM tool), `@mnemo`, `Preview Injection`, `cli`. */
  name: string;
  /** MCP `clientInfo.version`, VS Code's version for the LM tool. */
  version?: string;
  /** What it called: `recall` (default), `search`, `get`, `resources/read`, `/recall`, `/forget`, `answer`. */
  tool?: string;
}

/** What an agent said about a memory it was served: it used it, or it found it wrong. */
export type ReportVerdict = 'used' | 'wrong';

export interface LedgerItem {
  /** `mem_…` (a memory) or `ep_…` (a quoted turn). */
  id: string;
  kind: 'memory' | 'evidence';
  /** Its score in that recall (0..1). */
  score: number;
  project_id: string;
  /** The last report about it by the client it was served to, for this recall. */
  verdict?: ReportVerdict;
  /** With `with_text`: its text now (absent when it no longer exists). */
  text?: string;
  /** With `with_text`: a memory's status now. */
  status?: MemoryStatus;
}

/** One recall (or read) served to an agent or a person. */
export interface LedgerEntry {
  /** `srv_` + 16 hex. */
  id: string;
  /** UTC ISO-8601 with Z. */
  at: string;
  served_to: ServedTo;
  /** The projects it was served in (global is always searched too). */
  project_ids: string[];
  /** The query, redacted as everything Mnemo stores; '' for a read by id. */
  query: string;
  /** What was served, in the order served. */
  items: LedgerItem[];
  /** Estimated tokens of what was served (the block, for a recall). */
  tokens: number;
  /** Items removed since because their memory was deleted or their project wiped. */
  erased?: number;
}

export interface LedgerListParams {
  /** At most this many entries, newest first (default 100, at most 1000). */
  limit?: number;
  /** Only entries served to this client (its name, case-insensitive). */
  client?: string;
  /** Only entries that served this memory. */
  memory_id?: string;
  /** Only this entry. */
  entry_id?: string;
  /** Only entries served in one of these projects. */
  project_ids?: string[];
  /** Fill each item's `text` and `status` from the store (default false). */
  with_text?: boolean;
}
export interface LedgerListResult {
  entries: LedgerEntry[];
  /** Every matching entry in the ledger, when it was read to its end (a `memory_id` filter always is). */
  total?: number;
  /** More entries match than were returned, or the read stopped at its byte budget. */
  more: boolean;
}
/** Extension/CLI -> sidecar: the recalls served to agents and people, newest first ("What My Agents Saw", a memory's details). */
export const LedgerListRequest = new RequestType<LedgerListParams, LedgerListResult, void>(
  'mnemo/ledger/list',
);

/** Sidecar -> extension: the ledger got entries (from this or another process on the data folder); the "What My Agents Saw" view reloads. */
export const LedgerChangedNotification = new NotificationType<Record<string, never>>('mnemo/ledger/changed');

/** Extension -> sidecar: wait until the capture queue is drained (tests, shutdown, "flush"). */
export const FlushQueueRequest = new RequestType<{ timeout_ms?: number }, { remaining: number }, void>(
  'mnemo/queue/flush',
);

export interface DecayParams {
  /** UTC ISO date to compute decay as of (default now). */
  as_of?: string;
  /** Write the result (default false: preview only). */
  apply?: boolean;
}
export interface DecayResult {
  as_of: string;
  applied: boolean;
  steps: {
    id: string;
    text: string;
    project_id: string;
    months: number;
    before: number;
    after: number;
    archive: boolean;
  }[];
}
/** Extension/CLI -> sidecar: preview (default) or apply monthly confidence decay as of a date. */
export const DecayRequest = new RequestType<DecayParams, DecayResult, void>('mnemo/decay/run');

/** Extension/CLI -> sidecar: memories under a confidence threshold (default 0.5), the preview before cleaning. */
export const CleanPreviewRequest = new RequestType<
  { project_id?: string; threshold?: number },
  ListResult,
  void
>('mnemo/clean/preview');

/** Extension/CLI -> sidecar: archive or delete the memories selected in the clean preview (audited). */
export const CleanRequest = new RequestType<
  { ids: string[]; action: 'archive' | 'delete'; by?: string },
  { changed: number },
  void
>('mnemo/clean/apply');

export interface Notice {
  memory: Memory;
  /** Who marked it wrong, and when (UTC). */
  by: string;
  at: string;
}
/** Extension -> sidecar: memories this user confirmed that someone else has since marked wrong (shared stores). */
export const NoticesRequest = new RequestType<
  { user?: string; project_ids?: string[] },
  { notices: Notice[] },
  void
>('mnemo/notices/list');
/** Extension -> sidecar: the user has seen these notices. */
export const AckNoticesRequest = new RequestType<
  { ids: string[]; user?: string },
  { acknowledged: number },
  void
>('mnemo/notices/ack');

export interface ReembedParams {
  /** Progress is sent as mnemo/progress notifications with this token. */
  progress_token?: string;
}
export interface ReembedResult {
  /** Memories copied into the new collection. */
  migrated: number;
  /** The model now active, and its dimension. */
  model: string;
  dim: number;
  /** The collection that was active before (kept, so nothing is lost; never read again). */
  previous?: string;
}
/** Extension/CLI -> sidecar: re-embed every memory with the configured model into a new collection; switches over only when complete; cancellable. */
export const ReembedRequest = new RequestType<ReembedParams, ReembedResult, void>('mnemo/embedding/reembed');

export interface BulkImportMemory {
  text: string;
  project_id: string;
  /** Default: guessed from the text (as for remember). */
  category?: Category;
  /** Default 'import'. */
  source_type?: SourceType;
  /** UTC ISO-8601; default now. */
  created_at?: string;
}
export interface BulkImportParams {
  memories: BulkImportMemory[];
  /** Progress is sent as mnemo/progress notifications with this token. */
  progress_token?: string;
}
export interface BulkImportResult {
  /** New memories stored (status active). */
  imported: number;
  /** Skipped: the same text or a near-duplicate (cosine distance under dedupDistance) is already stored or earlier in the import. */
  duplicates: number;
  /** Skipped: a near-duplicate of a memory marked wrong. */
  blocked: number;
  /** Secrets and personal details redacted. */
  redactions: number;
  /** Texts longer than a memory holds (2,000 characters), imported cut to their start. */
  truncated?: number;
}
/** Extension/CLI -> sidecar: import many ready-made memories at once (redacted, embedded and upserted in batches, deduplicated); cancellable. */
export const BulkImportRequest = new RequestType<BulkImportParams, BulkImportResult, void>(
  'mnemo/memory/import',
);

// ---------------------------------------------------------------- the review queue (sidecar/review.ts)

export interface ReviewApplyParams {
  /** confirm: the person vouches for them; reject: marked wrong (never recalled, not learned again); archive: kept, never recalled. */
  action: 'confirm' | 'reject' | 'archive';
  ids: string[];
  /** Who decides, user@machine (default: the sidecar's user). */
  by?: string;
}
export interface ReviewApplyResult {
  /** Memories changed. */
  changed: number;
  /** Ids that could not be changed (unknown, or changed by someone else meanwhile). */
  failed: string[];
  /** Undoes the whole step with mnemo/review/undo (the sidecar keeps the last 20 steps while it runs). */
  undo_token: string;
}
/** Extension/CLI -> sidecar: confirm, reject or archive many memories of the review queue as one step, undoable; audited. */
export const ReviewApplyRequest = new RequestType<ReviewApplyParams, ReviewApplyResult, void>(
  'mnemo/review/apply',
);

export interface ReviewUndoParams {
  undo_token: string;
  by?: string;
}
/** Extension/CLI -> sidecar: put every memory a review step changed back as it was before it; audited. */
export const ReviewUndoRequest = new RequestType<ReviewUndoParams, { restored: number }, void>(
  'mnemo/review/undo',
);

// ---------------------------------------------------------------- agent transcripts (sidecar/capture, docs/capture.md)

/** What only the editor knows exactly: its user folder and this workspace's storage folder. */
export interface EditorDirs {
  /** VS Code's user folder (`…/Code/User`); default the platform's. */
  user_dir?: string;
  /** This workspace's storage folder (`…/workspaceStorage/<id>`), where VS Code keeps this workspace's chats. */
  workspace_storage?: string;
}

export interface SourcesParams {
  /** The working folders captured for (the workspace's folders, or the CLI's current folder), absolute. */
  folders: string[];
  editor?: EditorDirs;
}

/** One agent whose transcripts Mnemo can capture, as found on this machine. */
export interface SourceSummary {
  /** `vscode-chat`, `claude-code`, `codex`, `copilot-cli`, `cline`, `roo-code`, `gemini-cli`, `cursor`. */
  id: string;
  /** The agent's name, e.g. "Claude Code". */
  label: string;
  /** Transcripts of this agent exist on this machine. */
  detected: boolean;
  /** Sessions whose working folder is one of `folders` (or inside one): what a capture would read. */
  sessions: number;
  /** Sessions of other folders (each goes to its own project when captured). */
  other_sessions: number;
  /** The user's choice as last saved (`mnemo.capture.sources`): absent when never asked. */
  enabled?: boolean;
  /** UTC time something was last learned from this agent. */
  last_capture_at?: string;
  /** Sessions and messages learned from this agent so far (every folder). */
  captured_sessions: number;
  captured_messages: number;
  /** Where this agent keeps its transcripts here. */
  locations: string[];
  /** Something to know in one sentence (a store that cannot be read safely now, an unverified format). */
  note?: string;
}
export interface SourcesListResult {
  sources: SourceSummary[];
}
/** Extension/CLI -> sidecar: the agents whose transcripts exist here, with their session counts for these folders; reads no message. */
export const SourcesListRequest = new RequestType<SourcesParams, SourcesListResult, void>(
  'mnemo/sources/list',
);

export interface SourcesCaptureParams extends SourcesParams {
  /** The agents to read (ids of {@link SourceSummary}); the person consented to each. */
  sources: string[];
  /** One transcript file instead of every session of the folders (`mnemo capture --transcript`, a hook). */
  transcript?: string;
  /** The session ended (a hook): nothing of it is held back as still being written. Default false. */
  final?: boolean;
  /** Progress is sent as mnemo/progress notifications with this token. */
  progress_token?: string;
}
/** What a capture did for one agent: the one-line summary the person sees. */
export interface SourceCaptureSummary {
  id: string;
  label: string;
  /** Sessions something new was learned from. */
  sessions: number;
  /** Messages learned (queued and processed). */
  messages: number;
  stored: number;
  refreshed: number;
  pending: number;
  dropped: number;
  /** Files and records skipped (unreadable, unknown record types, excluded). */
  skipped: number;
  /** Pieces of Mnemo's own text recognized and not learned again. */
  injected: number;
  /** One line per skipped file or kind of record (bounded). */
  problems: string[];
  /** The projects that received memories or turns. */
  projects: string[];
  /** Sessions read but not learned from yet (the model is not available): they wait in the queue. */
  queued: number;
}
export interface SourcesCaptureResult {
  sources: SourceCaptureSummary[];
  /** Cancelled before every session was read (what was read is kept). */
  cancelled?: boolean;
}
/** Extension/CLI -> sidecar: read the new part of these agents' transcripts (consent given) and learn from it; cancellable, with progress. */
export const SourcesCaptureRequest = new RequestType<SourcesCaptureParams, SourcesCaptureResult, void>(
  'mnemo/sources/capture',
);

export interface SourcesConfigureParams extends SourcesParams {
  /** `mnemo.capture.sources`: the user's choice per agent id; an agent not listed was never asked. */
  enabled: Record<string, boolean>;
  /** Pause Capture is on for this window's folders. */
  paused: boolean;
  /** `mnemo.capture.excludeGlobs`: working folders whose sessions are never read. */
  exclude_globs: string[];
}
/** Extension -> sidecar: the capture settings of this window; the sidecar saves them for the CLI and hooks and keeps capturing the enabled agents' new turns. */
export const SourcesConfigureRequest = new RequestType<SourcesConfigureParams, { watching: number }, void>(
  'mnemo/sources/configure',
);

/** The JSON-RPC error codes the sidecar uses (see sidecar/shared/errors.ts). */
export const ErrorCodes = {
  InvalidInput: -32602,
  NotFound: -32004,
  StoreUnavailable: -32010,
  EmbeddingUnavailable: -32011,
  DimensionMismatch: -32012,
  LlmUnavailable: -32013,
  Cancelled: -32800,
  Internal: -32603,
} as const;

// ---------------------------------------------------------------- added for the extension (src/)

/** LLM extraction settings (`mnemo.llm.*`); sent as `initializationOptions.llm` and in {@link ConfigChangedNotification}. */
export interface LlmSettingsInput {
  /** Default "off" (rules only). With "vscode-lm" the sidecar calls back with {@link LlmCompleteRequest}. */
  provider: 'off' | 'openai-compatible' | 'vscode-lm';
  /** OpenAI-compatible base URL (the extension fills it from `mnemo.llm.preset` when the setting is empty). */
  baseUrl?: string;
  /** Model name (openai-compatible) or family/id hint (vscode-lm). */
  model?: string;
  /** From SecretStorage `mnemo.llm.apiKey`. */
  apiKey?: string;
}

/** Embedding settings (`mnemo.embedding.*`); a change needs a sidecar restart. */
export interface EmbeddingSettingsInput {
  /** `local` (transformers.js, default), `ollama`, or `openai` (any OpenAI-compatible /v1/embeddings). */
  provider?: 'local' | 'ollama' | 'openai';
  /** Model id; default depends on the provider. */
  model?: string;
  /** Folder holding the model files (air-gapped sites). */
  modelPath?: string;
  /** Mirror / base URL of the model hub for the first-use download. */
  remoteHost?: string;
  /** Base URL of the ollama / openai-compatible server. */
  baseUrl?: string;
  /** API key for `openai` (from SecretStorage). */
  apiKey?: string;
  /** Allow downloading the model on first use (default true). */
  allowRemote?: boolean;
}

/**
 * What the extension sends as LSP `initializationOptions` (built from the `mnemo.*` settings by
 * src/client.ts) and in {@link ConfigChangedNotification}; the CLI builds the same from flags and
 * environment. Every field is optional: the sidecar fills the defaults of package.json
 * (sidecar/config.ts). Setting names are the `mnemo.<section>.<key>` names, unchanged.
 */
export interface InitializationOptions {
  /** Where everything lives: chroma/, queue/, audit/, models/, logs/. */
  dataDir?: string;
  /** Who changes are attributed to: user@machine. */
  user?: string;
  /** `mnemo.chroma.url`: a remote/team Chroma server; empty = embedded server. */
  chromaUrl?: string;
  /** From SecretStorage `mnemo.chroma.token`. */
  chromaToken?: string;
  /**
   * `mnemo.chroma.allowUnisolated`: where the embedded Chroma cannot be isolated, run it on 127.0.0.1
   * anyway (default false: it is not started there). Env MNEMO_CHROMA_ALLOW_UNISOLATED=1.
   */
  chromaAllowUnisolated?: boolean;
  embedding?: EmbeddingSettingsInput;
  /** `mnemo.pipeline.*` */
  pipeline?: { dedupDistance?: number; reviewScoreThreshold?: number };
  /** `mnemo.episodes.*` */
  episodes?: { keep?: boolean; retentionDays?: number };
  /** `mnemo.ledger.*` */
  ledger?: { retentionDays?: number };
  /** `mnemo.recall.*`; weakSimilarity and minSimilarity are not settings (CLI and tests only). */
  recall?: {
    topK?: number;
    minConfidence?: number;
    tokenBudget?: number;
    weakSimilarity?: number;
    minSimilarity?: number;
  };
  /** `mnemo.decay.*` */
  decay?: { factor?: number; confirmedFactor?: number; floor?: number };
  /** `mnemo.review.*` the sidecar needs. */
  review?: { archivePendingAfterDays?: number };
  /** `mnemo.backup.*`, plus the saved password (SecretStorage `mnemo.backup.password`) scheduled backups need. */
  backup?: { schedule?: 'off' | 'daily' | 'weekly'; folder?: string; keep?: number; password?: string };
  /** `mnemo.llm.*`; the CLI may also pass a preset name and timeouts (MNEMO_LLM_*). */
  llm?: Partial<LlmSettingsInput> & { preset?: string; connectTimeoutMs?: number; readTimeoutMs?: number };
}

/** Extension -> sidecar: settings that need no restart changed (pipeline, recall, decay, llm); params are the whole new initializationOptions. */
export const ConfigChangedNotification = new NotificationType<InitializationOptions>('mnemo/config/changed');

export interface LlmCompleteParams {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  /** Model family or id hint (`mnemo.llm.model`); the extension picks the first match, else any chat model. */
  model?: string;
  /** Hint; the extension stops reading after roughly this many tokens. */
  max_tokens?: number;
}
export interface LlmCompleteResult {
  text: string;
  /** The vscode.lm model id that answered. */
  model: string;
}
/** Sidecar -> extension: run one extraction prompt through VS Code's language models when `llm.provider` is "vscode-lm" (errors with LlmUnavailable when none is usable). */
export const LlmCompleteRequest = new RequestType<LlmCompleteParams, LlmCompleteResult, void>(
  'mnemo/llm/complete',
);

// ---------------------------------------------------------------- backup (sidecar/backup, docs/backup.md)

export interface BackupExportParams {
  /** The backup file, or a folder to write `mnemo-backup-<project|all>-<UTC>.zip` into. */
  out: string;
  /** Encrypts the archive (AES-256); at least 8 characters. Asked from the user each time, never stored. */
  password: string;
  /** Back up one project's memories (not global ones); default every project. */
  project_id?: string;
  /** Include the vectors, so a restore with the same model needs no re-embedding. Default true. */
  include_vectors?: boolean;
  /** When set, progress is sent as {@link ProgressNotification}s with this token. */
  progress_token?: string;
}
/** What a backup holds. */
export interface BackupCounts {
  memories: number;
  audit_entries: number;
  /** Turn-level episodes (absent in backups made before episodes were backed up). */
  episodes?: number;
  /** Memories that carry a vector. */
  vectors: number;
  by_status: Record<MemoryStatus, number>;
}
export interface BackupExportResult {
  /** Absolute path of the backup written. */
  file: string;
  counts: BackupCounts;
  /** Size of the backup file. */
  bytes: number;
}
/** Extension/CLI -> sidecar: write an AES-256 encrypted ZIP backup (memories, audit log, manifest); cancellable, audited. */
export const BackupExportRequest = new RequestType<BackupExportParams, BackupExportResult, void>(
  'mnemo/backup/export',
);

/** Where a backup's records go and with whose consent: the same in the preview and the import. */
export interface BackupPlacement {
  /** The projects the user is working in (the current folder's, the workspace's): records for them go in without consent. */
  project_ids?: string[];
  /** The user saw the preview and agreed to records for global or other projects and to overwriting stored memories. Default false: such records are refused (listed in `refused`) and overwriting is refused. */
  consent?: boolean;
  /**
   * The user made this backup and keeps what it says a person vouched for: its confirmations (status
   * confirmed, who confirmed) and provenance tiers. Default false: a backup is untrusted, so a confirmed
   * memory comes back pending (its claimed confirmer in the reason), every record at most at the `outside`
   * tier, and instruction-shaped text is held for review (pipeline/firewall.ts).
   */
  keep_confirmations?: boolean;
}
export interface BackupInspectParams extends BackupPlacement {
  file: string;
  password: string;
  /** The mode to preview (default skip). */
  mode?: BackupImportMode;
  /** For mode new-project. */
  new_project_id?: string;
}
/** Where the records of a backup would go: one project of the store. */
export interface BackupTarget {
  project_id: string;
  /** Memories that would be added. */
  new: number;
  /** Memories whose id is already stored there, and how many of those differ. */
  conflicts: number;
  differ: number;
  /** Stored memories that would be replaced (mode overwrite). */
  overwrite: number;
  /** Episodes that would be added. */
  episodes: number;
  /** Global, or a project the user is not working in: written only with consent. */
  needs_consent: boolean;
}
/** Records of the backup that are not imported, by reason (e.g. "dated in the future", "for global, needs consent"). */
export interface BackupRefusal {
  reason: string;
  memories: number;
  episodes: number;
}
/** Who made a backup, when, of what, with which model: its manifest says it, and a preview repeats it. */
export interface BackupOrigin {
  /** UTC ISO-8601 with Z. */
  created_at: string;
  /** user@machine that made it. */
  created_by: string;
  /** The exported project, or null for a backup of every project. */
  project_id: string | null;
  /** Projects of the memories inside, sorted. */
  projects: string[];
  counts: BackupCounts;
  /** The embedding model and dimension of the backup's vectors (the store's active collection when exported; null for an empty store). */
  embedding: { model: string | null; dim: number | null };
}

/** A memory of the backup whose id already exists in the store. */
export interface BackupConflict {
  /** The id in the backup, which already exists in the store. */
  id: string;
  project_id: string;
  text: string;
  /** False when the stored memory is identical to the backup's. */
  differs: boolean;
  /** The fields whose values differ. */
  fields: string[];
  /** The backup's text when it differs from the stored one: what the memory becomes on overwrite. */
  backup_text?: string;
}
/** Counts, projects, embedding model, whether import re-embeds, and the ids that already exist in the store. */
export interface BackupPreview extends BackupOrigin {
  file: string;
  format_version: number;
  vectors_included: boolean;
  /** The store's active collection (absent when no store was given or it is still empty). */
  store?: { model: string; dim: number };
  /** Whether importing would re-embed texts with the store's model (different model/dimension, or no vectors). */
  needs_reembed: boolean;
  /** Ids of the backup that already exist in the store (only when a store was given). */
  conflicts: BackupConflict[];
  /** The mode previewed. */
  mode: BackupImportMode;
  /** Where the records would really go (decided by the importing user's projects and consent, not by the manifest). */
  targets: BackupTarget[];
  /** Records that would not be imported, by reason. */
  refused: BackupRefusal[];
  /** Backup ids that do not match their text and would hit a stored memory: imported under their text's id instead. */
  ids_recomputed: number;
  /** Importing as previewed writes into global or another project, or overwrites: needs `consent`. */
  needs_consent: boolean;
  /**
   * Memories the backup says a person confirmed, and who it names: they come back pending unless
   * `keep_confirmations` (the preview asks).
   */
  confirmations: { count: number; by: string[] };
}
/** Extension/CLI -> sidecar: decrypt and verify a backup and preview what importing it would do; changes nothing. */
export const BackupInspectRequest = new RequestType<BackupInspectParams, BackupPreview, void>(
  'mnemo/backup/inspect',
);

export type BackupImportMode = 'skip' | 'overwrite' | 'new-project';
export interface BackupImportParams extends BackupPlacement {
  file: string;
  password: string;
  /** skip: keep stored memories with the same id; overwrite: replace them; new-project: import everything under `new_project_id`. */
  mode: BackupImportMode;
  /** Required for mode new-project; that project must have no memories yet. */
  new_project_id?: string;
  /** When set, progress is sent as {@link ProgressNotification}s with this token. */
  progress_token?: string;
}
export interface BackupImportResult {
  mode: BackupImportMode;
  /** New memories written. */
  inserted: number;
  /** Existing memories replaced (mode overwrite). */
  overwritten: number;
  /** Existing memories kept as they were (mode skip, or identical ones). */
  skipped: number;
  /** Memories whose texts were re-embedded with the store's model. */
  reembedded: number;
  /** Audit entries appended (the backup's, marked imported, plus one `import` entry per memory written). */
  audit_entries: number;
  /** Backup memories merged away because their texts became the same id under the new project. */
  merged: number;
  projects: string[];
  /** Ids written. */
  ids: string[];
  /** Episodes written. */
  episodes: number;
  /** Backup ids that did not match their text and hit a stored memory: written under their text's id. */
  ids_recomputed: number;
  /** Records not imported, by reason. */
  refused: BackupRefusal[];
}
/** Extension/CLI -> sidecar: restore a backup, all or nothing (a failure or cancellation midway is rolled back); audited. */
export const BackupImportRequest = new RequestType<BackupImportParams, BackupImportResult, void>(
  'mnemo/backup/import',
);
