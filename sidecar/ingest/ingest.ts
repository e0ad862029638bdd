/**
 * Ingest: a session through the pipeline (normalize -> redact -> rules -> extract (LLM) -> score) and
 * then dedup -> store; and an explicit "remember this", which enters at dedup. Owns the LLM provider of
 * the extract stage, its token accounting and its abort on dispose.
 */
import type { Core } from '../core';
import { embedTurns } from '../embed/turnCache';
import { cosineDistance } from '../embed/vectors';
import { EmbeddingError, errorMessage, InvalidInputError, StoreUnavailableError } from '../shared/errors';
import { createLlmProvider, type LlmDeps, type LlmProvider, type LlmSettings } from '../llm/index';
import { LlmUsageCounter } from '../llm/usage';
import {
  GLOBAL_PROJECT,
  isAgentName,
  isCategory,
  isTier,
  lowerTier,
  MAX_MEMORY_CHARS,
  TIERS,
  type Tier,
} from '../model';
import { cutText } from '../shared/text';
import {
  extractionWindows,
  extractWithLlm,
  mergeRuleAndLlm,
  selectKnown,
  type ExtractResult,
} from '../pipeline/extract';
import { analyzeSession, guardCandidates, holdOf, sessionTierCap } from '../pipeline/index';
import { redactSession, redactText } from '../pipeline/redact';
import type { Candidate, SessionInput } from '../pipeline/types';
import type { IngestDecision, IngestParams, IngestReport, RememberParams } from '../protocol';
import { buildWhere } from '../store/where';
import { capSession, guessCategory, looksActionable, validateSession } from './input';
import { keepEpisodes, prepareEpisodes, type PreparedEpisodes } from './episodes';
import { storeCandidates } from './storeCandidates';

/** Embedding cosine distance under which an LLM fact and a rule candidate say the same (agreement). */
const LLM_AGREEMENT_DISTANCE = 0.25;

export interface IngestOptions {
  llmDeps?: LlmDeps;
  /** A ready provider instead of the one config.llm describes (tests). */
  llmProvider?: LlmProvider;
  /** The last extraction's failure (one sentence), or undefined after a success: shown in the status. */
  onLlmError: (error: string | undefined) => void;
}

/** A session through the stages that write nothing ({@link Ingest.prepare}), ready to be committed. */
export interface PreparedSession {
  session: SessionInput;
  explain: boolean;
  report: IngestReport;
  candidates: Candidate[];
  candidateVectors: number[][];
  /** Its turns, read and being embedded; undefined when turns are not kept. */
  episodes?: Promise<PreparedEpisodes | undefined>;
}

/**
 * How the worker ingests a queued session, in stages (ingest.ts): `prepare` writes nothing (the pipeline and
 * the embedding), `commit` stores the memories (dedup, store) and `keepTurns` the turns — so the next session
 * is prepared while the one before it is committed, the commits keep the queue's order, and in a backlog the
 * turns of several sessions go to the store in one write. `backlog`: more sessions wait behind it (an Import
 * Chat, a backfill), so its embedding is a bulk job; the queue id makes a replay after a crash idempotent.
 */
export interface CaptureIngest {
  prepare(session: SessionInput, backlog: boolean): Promise<PreparedSession>;
  commit(prepared: PreparedSession, captureId: string): Promise<CommittedSession>;
  keepTurns(batch: CommittedSession[]): Promise<void>;
}

/** A session's turns, prepared, with the session whose memories are stored. */
interface TurnsReady {
  committed: CommittedSession;
  prepared: PreparedEpisodes | undefined;
}

/** A session whose memories are stored: its report, and its turns still to keep ({@link Ingest.keepTurns}). */
export interface CommittedSession {
  report: IngestReport;
  turns?: Promise<PreparedEpisodes | undefined>;
  links: Map<string, string[]>;
}

export class Ingest {
  private llm: LlmProvider | undefined;
  private readonly llmDeps: LlmDeps;
  readonly llmUsage: LlmUsageCounter;
  /** Aborts LLM calls in flight on dispose. */
  private readonly llmAbort = new AbortController();

  constructor(
    private readonly core: Core,
    private readonly opts: IngestOptions,
  ) {
    this.llmDeps = opts.llmDeps ?? {};
    this.llm = opts.llmProvider ?? createLlmProvider(core.config.llm, this.llmDeps);
    this.llmUsage = new LlmUsageCounter(core.config.dataDir, core.clock);
  }

  /** Switches the extract stage's provider when the LLM settings changed. */
  useLlm(next: LlmSettings): void {
    if (JSON.stringify(next) === JSON.stringify(this.core.config.llm)) return;
    this.llm?.dispose?.();
    this.core.config.llm = next;
    this.llm = createLlmProvider(next, this.llmDeps);
    this.opts.onLlmError(undefined);
    this.core.log.info(`LLM extraction: ${this.llm?.id ?? 'off (rules only)'}`); // the id never holds the key
    this.core.refreshStatus();
  }

  /** Processes a session now and reports every decision. */
  async ingest(params: IngestParams): Promise<IngestReport> {
    validateSession(params);
    const { session, cut } = capSession(params);
    const report = await this.process((await redactSession(session)).session, params.explain ?? true);
    return cut ? { ...report, messages_cut: cut } : report;
  }

  /**
   * The pipeline, dedup and store for one (validated) session. `captureId` (a queued capture's id) makes
   * processing it again after a crash a no-op for what the earlier attempt already wrote. `bulk`: one of
   * many queued sessions (Import Chat): its texts are embedded as a bulk job (embed/types.ts `bulk`).
   */
  async process(
    session: SessionInput,
    explain: boolean,
    captureId?: string,
    bulk = false,
  ): Promise<IngestReport> {
    const committed = await this.commit(await this.prepare(session, explain, bulk), captureId);
    await this.keepTurns([committed]);
    return committed.report;
  }

  /**
   * What a session needs before anything is written, and what does not depend on the store's state: the
   * pipeline, the extract stage (LLM), the candidates' vectors, and its turns read and embedded as episodes
   * (started here, awaited by {@link commit}). A queue of sessions prepares the next one while the one before
   * it is committed: the embedding worker and the store work at the same time.
   */
  async prepare(session: SessionInput, explain: boolean, bulk = false): Promise<PreparedSession> {
    const { core } = this;
    const analysis = await analyzeSession(session, {
      reviewScoreThreshold: core.config.pipeline.reviewScoreThreshold,
      clock: core.clock,
    });
    const report: IngestReport = {
      project_id: session.project_id,
      decisions: [],
      stored: 0,
      refreshed: 0,
      pending: 0,
      dropped: 0,
      messages_read: analysis.episodes.length,
      messages_empty: analysis.empty,
    };
    if (analysis.skipped) report.skipped = analysis.skipped;
    // The extract stage (LLM) runs beside the rest; it never throws and is bounded by its timeouts.
    const llmRun = this.llm && !analysis.skipped ? this.extract(this.llm, session) : undefined;
    for (const d of analysis.dropped) {
      report.dropped++;
      if (explain) report.decisions.push({ text: d.text, outcome: 'dropped', reason: d.reason });
    }
    let candidates = analysis.candidates;
    // The session's one embedding pass: each distinct text is embedded once, whether it is a candidate,
    // an LLM fact or a turn kept as an episode (a candidate that is a whole turn of a named transcript,
    // "Alice: I moved to Berlin", has the turn's text). Always the redacted text, as analyzed above.
    const vectorOf = new Map<string, number[]>();
    const embedMissing = async (texts: string[]): Promise<void> => {
      const missing = [...new Set(texts)].filter((t) => !vectorOf.has(t));
      if (missing.length === 0) return;
      await core.requireModel();
      const vs = await embedTurns(core.embedding, missing, bulk ? { bulk } : {});
      missing.forEach((t, i) => vectorOf.set(t, vs[i]!));
    };
    const vectorsOf = async (texts: string[]): Promise<number[][]> => {
      await embedMissing(texts);
      return texts.map((t) => vectorOf.get(t)!);
    };
    if (llmRun) {
      const llm = await llmRun;
      if (llm.windows) report.llm_windows = llm.windows;
      // On an LLM failure the rules' candidates stand as they are (nothing goes to review because of it).
      if (llm.error === undefined && (candidates.length > 0 || llm.candidates.length > 0)) {
        await embedMissing([...candidates, ...llm.candidates].map((c) => c.text));
        const similar = (a: string, b: string): boolean =>
          cosineDistance(vectorOf.get(a)!, vectorOf.get(b)!) < LLM_AGREEMENT_DISTANCE;
        const merged = await mergeRuleAndLlm(candidates, llm.candidates, similar, analysis.dropped);
        // What the extract stage added goes through the firewall too (an LLM may repeat a planted line).
        candidates = guardCandidates(
          merged,
          analysis.guard,
          [],
          session.source_type,
          sessionTierCap(session),
        );
      }
    }
    const candidateVectors = candidates.length > 0 ? await vectorsOf(candidates.map((c) => c.text)) : [];
    // The episodes are read and embedded while the memories are deduplicated and stored (they need only
    // the memories' ids, to link to them).
    const episodes = core.config.episodes.keep
      ? prepareEpisodes(core, session, analysis.episodes, vectorsOf, analysis)
      : undefined;
    void episodes?.catch(() => undefined); // awaited by commit; a failure of the store stage comes first
    return { session, explain, report, candidates, candidateVectors, episodes };
  }

  /** The two stages as the capture worker drives them; explained: a capture that keeps nothing says why. */
  captureStages(): CaptureIngest {
    return {
      prepare: (session, backlog) => this.prepare(session, true, backlog),
      commit: (prepared, captureId) => this.commit(prepared, captureId),
      keepTurns: (batch) => this.keepTurns(batch),
    };
  }

  /**
   * The stage that stores the memories (dedup, store), in the order the sessions came; the session's turns
   * are kept after it ({@link keepTurns}), linked to what was learnt from them.
   */
  async commit(prepared: PreparedSession, captureId?: string): Promise<CommittedSession> {
    const { core } = this;
    const { session, explain, report, candidates, candidateVectors } = prepared;
    const links = new Map<string, string[]>();
    if (candidates.length > 0) {
      const changed: string[] = [];
      const decisions = await storeCandidates(
        core,
        session,
        candidates,
        candidateVectors,
        undefined,
        captureId,
      );
      // A turn links to what was learnt from it, and to the memory marked wrong that blocked what it says
      // (so it is not quoted either: recall/recall.ts).
      decisions.forEach((d, i) => {
        if (!d.id) return;
        for (const m of candidates[i]?.message_ids ?? [])
          links.set(m, [...new Set([...(links.get(m) ?? []), d.id])]);
      });
      for (const decision of decisions) {
        report[decision.outcome === 'stored' ? 'stored' : decision.outcome]++;
        if (decision.id && decision.outcome !== 'dropped') changed.push(decision.id);
        if (explain || decision.outcome !== 'dropped') report.decisions.push(decision);
      }
      if (changed.length) core.notifyChanged([session.project_id], changed);
    }
    return { report, links, ...(prepared.episodes ? { turns: prepared.episodes } : {}) };
  }

  /**
   * Keeps the turns of sessions whose memories are stored, in one write (a backlog's several sessions). A
   * store that is unavailable (or a model that is) fails them all: they stay queued and are retried, and
   * their memories, stored already, are only refreshed by the replay. Any other failure to keep a session's
   * turns is a partial result of that session (`episodes_error`): what was learned stays learned, and the
   * capture is not lost for it; when the store refuses the batch, each session is written alone, so one
   * session's turns cost no other theirs.
   */
  async keepTurns(batch: CommittedSession[]): Promise<void> {
    try {
      const kept = batch.filter((c) => c.turns !== undefined);
      const settled = await Promise.allSettled(kept.map((c) => c.turns));
      const ready: TurnsReady[] = [];
      settled.forEach((r, i) => {
        if (r.status === 'fulfilled') ready.push({ committed: kept[i]!, prepared: r.value });
        else this.turnsLost(kept[i]!, r.reason);
      });
      const failed = await this.writeTurns(ready);
      if (!failed) return;
      if (ready.length === 1) return this.turnsLost(ready[0]!.committed, failed.error);
      for (const one of ready) {
        const alone = await this.writeTurns([one]);
        if (alone) this.turnsLost(one.committed, alone.error);
      }
    } finally {
      this.core.refreshStatus();
    }
  }

  /** Writes the turns of these sessions in one write; the error when the store refused them (not when it is unavailable: thrown). */
  private async writeTurns(ready: TurnsReady[]): Promise<{ error: unknown } | undefined> {
    try {
      const counts = await keepEpisodes(
        this.core,
        ready.map((r) => ({ prepared: r.prepared, links: r.committed.links })),
      );
      ready.forEach((r, i) => (r.committed.report.episodes = counts[i]!));
      return undefined;
    } catch (e) {
      if (e instanceof StoreUnavailableError || e instanceof EmbeddingError) throw e;
      return { error: e };
    }
  }

  /** A session whose turns could not be kept (its memories are stored); an unavailable store or model is thrown. */
  private turnsLost(session: CommittedSession, e: unknown): void {
    if (e instanceof StoreUnavailableError || e instanceof EmbeddingError) throw e;
    const error = `The turns could not be kept as evidence: ${errorMessage(e).replace(/[.。]\s*$/, '')}.`;
    session.report.episodes = 0;
    session.report.episodes_error = error;
    this.core.log.warn(`${error} The memories of the session are stored.`);
  }

  /**
   * The extract stage for one session: the project's known memories (so the LLM reports only what is
   * new, docs/design.md "Extraction"), the call, token accounting and the status. Never throws.
   */
  private async extract(
    provider: LlmProvider,
    session: SessionInput,
  ): Promise<ExtractResult & { windows: number }> {
    const { core } = this;
    const windows = await extractionWindows(session, core.clock);
    let known: string[] = [];
    try {
      const rows = await core.store.find(
        buildWhere({
          project_ids: [session.project_id, GLOBAL_PROJECT],
          status: ['active', 'confirmed', 'pending'],
        }),
      );
      known = selectKnown(rows.map((r) => r.memory));
    } catch (e) {
      core.log.warn(`LLM extraction without known memories (${errorMessage(e)}).`);
    }
    // Window by window, all of them: a long transcript is never cut to its newest part.
    const r: ExtractResult & { windows: number } = {
      candidates: [],
      usage: { prompt_tokens: 0, completion_tokens: 0 },
      guard_redactions: 0,
      windows: 0,
    };
    for (const messages of windows) {
      const w = await extractWithLlm(provider, messages, known, {
        source_type: session.source_type,
        reviewScoreThreshold: core.config.pipeline.reviewScoreThreshold,
        signal: this.llmAbort.signal,
      });
      if (w.skipped) continue;
      r.windows++;
      r.candidates.push(...w.candidates);
      r.usage = {
        prompt_tokens: r.usage.prompt_tokens + w.usage.prompt_tokens,
        completion_tokens: r.usage.completion_tokens + w.usage.completion_tokens,
        ...(r.usage.estimated || w.usage.estimated ? { estimated: true } : {}),
      };
      r.guard_redactions += w.guard_redactions;
      if (w.error) {
        // The rules' candidates stand for the whole session; what the LLM found before is not half-used.
        r.error =
          windows.length > 1
            ? `${w.error.replace(/[.。]\s*$/, '')} (window ${r.windows} of ${windows.length}).`
            : w.error;
        r.candidates = [];
        break;
      }
      if (core.disposed) break;
    }
    if (r.windows === 0) return { ...r, skipped: 'nothing to send' };
    if (core.disposed) return r;
    const totals = this.llmUsage.record({ usage: r.usage, error: r.error });
    const tokens = `${r.usage.prompt_tokens}+${r.usage.completion_tokens} tokens${r.usage.estimated ? ' (estimated)' : ''}`;
    const line = `LLM extraction (${provider.id}, ${known.length} known): ${r.error?.replace(/[.。]\s*$/, '') ?? `${r.candidates.length} candidate(s)`}; ${tokens}. ${LlmUsageCounter.describe(totals)}`;
    if (r.error) core.log.warn(line);
    else core.log.info(line);
    if (r.guard_redactions > 0)
      core.log.warn(
        `The LLM prompt guard redacted ${r.guard_redactions} secret(s) the redact stage had missed.`,
      );
    this.opts.onLlmError(r.error);
    return r;
  }

  /** An explicit "remember this": redacted, deduplicated, stored (confirmed unless pending asked). */
  async remember(p: RememberParams): Promise<IngestDecision> {
    const { core } = this;
    if (!p || typeof p.text !== 'string' || !p.text.trim())
      throw new InvalidInputError('There is nothing to remember: the text is empty.');
    if (typeof p.project_id !== 'string' || !p.project_id)
      throw new InvalidInputError('remember needs a project_id.');
    if (p.category !== undefined && !isCategory(p.category))
      throw new InvalidInputError(`Unknown category "${String(p.category)}".`);
    if (p.tier !== undefined && !isTier(p.tier))
      throw new InvalidInputError(`Unknown tier "${String(p.tier)}"; one of ${TIERS.join(', ')}.`);
    // A memory holds MAX_MEMORY_CHARS; a longer text is cut at a character boundary and the decision says so.
    const whole = p.text.trim();
    const { text } = await redactText(cutText(whole, MAX_MEMORY_CHARS));
    const cut = whole.length > MAX_MEMORY_CHARS;
    // Who vouches for it: a person unless review was asked; an agent's text never more than an agent's.
    const asked: Tier = p.tier ?? (p.pending ? 'agent' : 'person');
    const tier = isAgentName(p.added_by) ? lowerTier(asked, 'agent') : asked;
    const held = holdOf(text, tier, { forAgents: p.source_type === 'import' });
    const pending = !!p.pending || !!held;
    await core.requireModel();
    const [vector] = await core.embedding.embed([text]);
    const { session } = await redactSession<SessionInput>({
      project_id: p.project_id,
      source_type: p.source_type ?? 'manual',
      messages: [{ role: 'user', content: text }],
      added_by: p.added_by ?? core.config.user,
      source_ref: p.source_ref ?? [],
    });
    const candidate: Candidate = {
      text,
      category: p.category ?? guessCategory(text),
      source_type: p.source_type ?? 'manual',
      is_actionable: looksActionable(text),
      source_ref: session.source_ref ?? [],
      message_ids: [],
      reason: cut
        ? `explicit: remembered on request; cut to its first ${MAX_MEMORY_CHARS} of ${whole.length} characters`
        : 'explicit: remembered on request',
      score: 8,
      confidence: pending ? 0.7 : 0.9,
      pending,
      pending_reason: held ?? (pending ? 'explicit request waits for review' : undefined),
      tier,
      ...(held ? { held } : {}),
    };
    // A person asked for it: unless review was requested (or the firewall held it), it is confirmed by them.
    const [decision] = await storeCandidates(
      core,
      session,
      [candidate],
      [vector],
      pending || tier !== 'person' ? undefined : session.added_by,
    );
    if (decision.id) core.notifyChanged([p.project_id], [decision.id]);
    else core.refreshStatus();
    return cut
      ? { ...decision, truncated: { kept: cutText(whole, MAX_MEMORY_CHARS).length, total: whole.length } }
      : decision;
  }

  dispose(): void {
    this.llmAbort.abort();
    this.llm?.dispose?.();
  }
}
