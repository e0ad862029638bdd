/**
 * The memory service: one instance per sidecar (or CLI run). Owns the store, the embedder, the durable
 * capture queue and the audit log, and implements every protocol request. Transport-free: server.ts
 * binds it to a JSON-RPC connection, cli.ts calls it directly.
 */
import { join } from 'node:path';
import type { SidecarConfig } from './config';
import type { EmbeddingProvider } from './embed/types';
import { cosineDistance } from './embed/vectors';
import { createLlmProvider, type LlmDeps, type LlmProvider } from './llm/index';
import { LlmUsageCounter } from './llm/usage';
import { CancelledError, EmbeddingError, InvalidInputError, MnemoError, NotFoundError, errorMessage } from './errors';
import { startBackupSchedule } from './backup/schedule';
import { AuditLog } from './lifecycle/audit';
import { futureAsOfError, planDecay } from './lifecycle/decay';
import { GLOBAL_PROJECT, isCategory, isSourceType, memoryId, type Category, type Memory, type MemoryStatus } from './model';
import { analyzeSession } from './pipeline/index';
import { redactSession, redactText } from './pipeline/redact';
import { extractWithLlm, extractionMessages, mergeRuleAndLlm, selectKnown, type ExtractResult } from './pipeline/extract';
import type { Candidate, SessionInput } from './pipeline/types';
import type {
  AuditEntry,
  BulkImportMemory,
  BulkImportResult,
  CaptureResult,
  ProgressParams,
  ReembedParams,
  ReembedResult,
  DecayParams,
  DecayResult,
  Notice,
  FeedbackParams,
  Health,
  IngestDecision,
  IngestParams,
  IngestReport,
  ListParams,
  ListResult,
  MemoryFilter,
  ProjectStats,
  RecallItem,
  RecallParams,
  RecallResult,
  RememberParams,
  SearchParams,
  SearchResult,
  StatsResult,
  StatusParams,
  UpdateParams,
} from './protocol';
import { openCaptureQueue, type DurableQueue } from './queue';
import { entityOverlap, extractEntities } from './recall/entities';
import { formatBlock } from './recall/format';
import { ChromaSupervisor } from './store/chromaServer';
import { MemoryStore, buildWhere, collectionNameFor, type ActiveCollection, type Neighbour } from './store/memoryStore';

export interface ServiceEvents {
  status(p: StatusParams): void;
  progress(p: ProgressParams): void;
  changed(projectIds: string[], ids?: string[]): void;
  log(line: string): void;
}

export interface ServiceOptions {
  config: SidecarConfig;
  embedder: EmbeddingProvider;
  events?: Partial<ServiceEvents>;
  clock?: () => Date;
  /** Process the capture queue in the background (default true; the CLI's one-shot commands turn it off). */
  backgroundQueue?: boolean;
  /** What the LLM providers need from the host: stdio.ts passes the vscode-lm bridge; the CLI nothing. */
  llmDeps?: LlmDeps;
  /** A ready provider instead of the one config.llm describes (tests). */
  llmProvider?: LlmProvider;
}

/** Embedding cosine distance under which an LLM fact and a rule candidate say the same (agreement). */
const LLM_AGREEMENT_DISTANCE = 0.25;

/** A recallable memory: not pending, wrong or archived. */
const RECALLABLE: MemoryStatus[] = ['active', 'confirmed'];
const DAY_MS = 24 * 3600 * 1000;

function validateSession(s: SessionInput): void {
  if (!s || typeof s !== 'object') throw new InvalidInputError('A session must be an object with project_id, source_type and messages.');
  if (typeof s.project_id !== 'string' || !s.project_id.trim()) throw new InvalidInputError('The session has no project_id.');
  if (!isSourceType(s.source_type)) throw new InvalidInputError(`Unknown source_type "${String(s.source_type)}".`);
  if (!Array.isArray(s.messages)) throw new InvalidInputError('The session has no messages array.');
  s.messages.forEach((m, i) => {
    if (!m || typeof m !== 'object' || typeof m.content !== 'string') {
      throw new InvalidInputError(`Message ${i + 1} has no text content.`);
    }
  });
}

export class MnemoService {
  readonly config: SidecarConfig;
  readonly store: MemoryStore;
  readonly supervisor: ChromaSupervisor;
  private queueInstance: DurableQueue<SessionInput> | undefined;
  readonly audit: AuditLog;
  private readonly embedder: EmbeddingProvider;
  private readonly clock: () => Date;
  private readonly events: Partial<ServiceEvents>;
  private embedState: { state: 'loading' | 'ready' | 'error'; message: string } = { state: 'loading', message: 'Loading the embedding model.' };
  private storeState: { ok: boolean; message: string } = { ok: true, message: '' };
  private modelMismatch: string | undefined;
  private draining: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private decayTimer: NodeJS.Timeout | undefined;
  private backupSchedule: { dispose(): void } | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  private readonly background: boolean;
  private llm: LlmProvider | undefined;
  private readonly llmDeps: LlmDeps;
  private readonly llmUsage: LlmUsageCounter;
  /** The last extraction's failure (one sentence); cleared by the next success. Shown in the status. */
  private llmError: string | undefined;
  /** Aborts LLM calls in flight on dispose. */
  private readonly llmAbort = new AbortController();

  constructor(opts: ServiceOptions) {
    this.config = opts.config;
    this.embedder = opts.embedder;
    this.clock = opts.clock ?? (() => new Date());
    this.events = opts.events ?? {};
    this.background = opts.backgroundQueue ?? true;
    this.llmDeps = opts.llmDeps ?? {};
    this.llm = opts.llmProvider ?? createLlmProvider(this.config.llm, this.llmDeps);
    this.llmUsage = new LlmUsageCounter(this.config.dataDir, this.clock);
    this.supervisor = new ChromaSupervisor({
      dataDir: this.config.dataDir,
      url: this.config.chromaUrl,
      token: this.config.chromaToken,
      log: (l) => this.log(l),
      onHealth: (ok, message) => {
        this.storeState = { ok, message };
        this.scheduleStatus();
      },
    });
    this.store = new MemoryStore(this.supervisor, this.config.dataDir, (l) => this.log(l));
    this.audit = new AuditLog(join(this.config.dataDir, 'audit', 'audit.jsonl'));
  }

  /** Applies settings that need no restart (thresholds, recall, decay). */
  updateSettings(next: SidecarConfig): void {
    this.config.pipeline = next.pipeline;
    this.config.recall = next.recall;
    this.config.decay = next.decay;
    this.config.backup = next.backup;
    if (JSON.stringify(next.llm) !== JSON.stringify(this.config.llm)) {
      this.llm?.dispose?.();
      this.config.llm = next.llm;
      this.llm = createLlmProvider(next.llm, this.llmDeps);
      this.llmError = undefined;
      this.log(`LLM extraction: ${this.llm?.id ?? 'off (rules only)'}`); // the id never holds the key
      this.scheduleStatus();
    }
    this.log('Settings updated (pipeline, recall, decay).');
  }

  /** This process's durable capture queue (opened on first use; adopts queues of crashed processes). */
  get queue(): DurableQueue<SessionInput> {
    this.queueInstance ??= openCaptureQueue<SessionInput>(join(this.config.dataDir, 'queue'));
    return this.queueInstance;
  }

  private get queued(): number {
    return this.queueInstance?.size ?? 0;
  }

  private log(line: string): void {
    this.events.log?.(line);
  }

  private now(): string {
    return this.clock().toISOString();
  }

  // ------------------------------------------------------------------ lifecycle

  /** Connects to Chroma and starts loading the model in the background. */
  async start(): Promise<void> {
    if (this.background) void this.queue; // open it now: adopt what a crashed sidecar left
    await this.supervisor.ensure();
    void this.loadModel();
    this.scheduleStatus();
    if (this.background) {
      // Decay is idempotent per month: run it now (catch-up after time offline) and every six hours.
      const runDecay = () =>
        void this.decay({ apply: true }).then(
          (r) => r.steps.length && this.log(`Decay applied to ${r.steps.length} memories (${r.steps.filter((x) => x.archive).length} archived).`),
          (e: unknown) => this.log(`Decay failed: ${errorMessage(e)}`),
        );
      runDecay();
      this.decayTimer = setInterval(runDecay, 6 * 3600 * 1000);
      this.decayTimer.unref?.();
      this.backupSchedule = startBackupSchedule(
        this,
        () => {
          const b = this.config.backup;
          if (!b.folder || !b.password || !b.every || b.every === 'off') return undefined;
          return { folder: b.folder, every: b.every, keep: b.keep ?? 7, password: b.password };
        },
        { clock: this.clock, log: (l) => this.log(l) },
      );
    }
  }

  private async loadModel(): Promise<void> {
    try {
      await this.embedder.ready();
      const matches = await this.store.useModel(this.embedder.modelId, this.embedder.dimension());
      this.modelMismatch = matches
        ? undefined
        : `The store was built with ${this.store.active!.model} (${this.store.active!.dim} dimensions) but ${this.embedder.modelId} is configured; run "Mnemo: Re-embed Memories" to switch.`;
      this.embedState = { state: 'ready', message: '' };
      this.log(`Embedding model ready: ${this.embedder.modelId} (${this.embedder.dimension()} dimensions)`);
    } catch (e) {
      this.embedState = { state: 'error', message: errorMessage(e) };
      this.log(`Embedding model unavailable: ${errorMessage(e)}`);
      if (!this.disposed) {
        this.retryTimer = setTimeout(() => {
          this.embedState = { state: 'loading', message: 'Loading the embedding model.' };
          void this.loadModel();
        }, 60_000);
        this.retryTimer.unref?.();
      }
    }
    this.scheduleStatus();
    if (this.background) this.kickQueue();
  }

  /** Resolves when the model is ready; rejects with the reason when it is not available. */
  async requireModel(): Promise<void> {
    if (this.embedState.state === 'loading') await this.loadModelOnce();
    if (this.embedState.state === 'error') throw new EmbeddingError(this.embedState.message);
    if (this.modelMismatch) throw new EmbeddingError(this.modelMismatch);
  }

  private loadOnce: Promise<void> | undefined;
  private loadModelOnce(): Promise<void> {
    this.loadOnce ??= this.loadModel();
    return this.loadOnce;
  }

  get modelReady(): boolean {
    return this.embedState.state === 'ready' && !this.modelMismatch;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.llmAbort.abort();
    this.llm?.dispose?.();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.decayTimer) clearInterval(this.decayTimer);
    this.backupSchedule?.dispose();
    if (this.statusTimer) clearTimeout(this.statusTimer);
    await this.draining?.catch(() => undefined);
    await this.writesBehind;
    this.queueInstance?.close();
    this.audit.close();
    await this.embedder.dispose().catch(() => undefined);
    await this.supervisor.stop();
  }

  // ------------------------------------------------------------------ status

  private scheduleStatus(): void {
    if (this.disposed || this.statusTimer) return;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      void this.computeStatus().then((s) => this.events.status?.(s));
    }, 200);
    this.statusTimer.unref?.();
  }

  async computeStatus(): Promise<StatusParams> {
    let health: Health = 'ok';
    let message = 'Mnemo is ready.';
    let memoryCount: number | undefined;
    let pendingCount: number | undefined;
    try {
      memoryCount = await this.store.count();
      pendingCount = (await this.store.find(buildWhere({ status: ['pending'] }))).length;
    } catch (e) {
      health = 'error';
      message = `The memory store is unavailable: ${errorMessage(e)}`;
    }
    if (health === 'ok' && !this.storeState.ok) {
      health = 'warning';
      message = this.storeState.message;
    }
    if (health === 'ok' && this.embedState.state === 'error') {
      health = 'warning';
      message = `Embedding model unavailable (${this.embedState.message.replace(/\.$/, '')}); captures are queued and keyword search still works.`;
    } else if (health === 'ok' && this.modelMismatch) {
      health = 'warning';
      message = this.modelMismatch;
    } else if (health === 'ok' && this.embedState.state === 'loading') {
      message = 'Loading the embedding model; captures are queued meanwhile.';
    }
    if (health === 'ok' && this.llmError) {
      health = 'warning';
      message = `${this.llmError.replace(/[.。]\s*$/, '')}; Mnemo keeps learning with the rules alone.`;
    }
    return { health, message, memoryCount, pendingCount, queued: this.queued };
  }

  // ------------------------------------------------------------------ capture queue

  /** Redacts and appends a session to the durable queue; returns once it is on disk. */
  async capture(session: SessionInput): Promise<CaptureResult> {
    validateSession(session);
    const { session: clean, redactions } = await redactSession({ ...session, added_by: session.added_by ?? this.config.user });
    const entry = this.queue.enqueue(clean, this.now());
    this.scheduleStatus();
    if (this.background) this.kickQueue();
    return { queue_id: entry.id, redactions };
  }

  /** Starts draining the queue unless already draining. */
  kickQueue(): void {
    if (this.draining || this.disposed) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      this.scheduleStatus();
    });
  }

  /** Processes queued sessions in order; stops (keeping them queued) while the model is unavailable. */
  async drain(): Promise<void> {
    for (;;) {
      if (this.disposed || !this.modelReady) return;
      const next = this.queue.pending()[0];
      if (!next) return;
      try {
        const report = await this.ingestNow(next.payload, false);
        this.log(
          `Processed capture ${next.id.slice(0, 8)} (${next.payload.source_type}, ${next.payload.project_id}): ${report.stored} stored, ${report.refreshed} refreshed, ${report.pending} pending, ${report.dropped} dropped${report.skipped ? ` (${report.skipped})` : ''}`,
        );
        this.queue.markDone(next.id);
      } catch (e) {
        if (e instanceof EmbeddingError || (e instanceof MnemoError && e.name === 'StoreUnavailableError')) {
          this.log(`Capture ${next.id.slice(0, 8)} stays queued: ${errorMessage(e)}`);
          return; // retried when the model/store is back
        }
        this.queue.markFailed(next.id, errorMessage(e));
        this.log(`Capture ${next.id.slice(0, 8)} failed: ${errorMessage(e)}`);
        if (next.attempts >= 3) {
          this.log(`Capture ${next.id.slice(0, 8)} dropped after 3 failed attempts.`);
          this.queue.markDone(next.id);
        }
      }
    }
  }

  /** Waits until the queue is empty (or the timeout passes); returns how many remain. */
  async flush(timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.size > 0 && Date.now() < deadline) {
      if (!this.modelReady) {
        await this.requireModel();
      }
      this.kickQueue();
      await Promise.race([this.draining, new Promise((r) => setTimeout(r, 100))]);
    }
    return this.queue.size;
  }

  // ------------------------------------------------------------------ ingest

  /** Processes a session now and reports every decision. */
  async ingest(params: IngestParams): Promise<IngestReport> {
    validateSession(params);
    return this.ingestNow((await redactSession(params)).session, params.explain ?? true);
  }

  private async ingestNow(session: SessionInput, explain: boolean): Promise<IngestReport> {
    const analysis = await analyzeSession(session, {
      reviewScoreThreshold: this.config.pipeline.reviewScoreThreshold,
      clock: this.clock,
    });
    const report: IngestReport = { project_id: session.project_id, decisions: [], stored: 0, refreshed: 0, pending: 0, dropped: 0 };
    if (analysis.skipped) report.skipped = analysis.skipped;
    // The extract stage (LLM) runs beside the rest; it never throws and is bounded by its timeouts.
    const llmRun = this.llm && !analysis.skipped ? this.extractWithLlm(this.llm, session) : undefined;
    for (const d of analysis.dropped) {
      report.dropped++;
      if (explain) report.decisions.push({ text: d.text, outcome: 'dropped', reason: d.reason });
    }
    let candidates = analysis.candidates;
    const vectorOf = new Map<string, number[]>();
    const embedMissing = async (texts: string[]): Promise<void> => {
      const missing = [...new Set(texts)].filter((t) => !vectorOf.has(t));
      if (missing.length === 0) return;
      await this.requireModel();
      const vs = await this.embedder.embed(missing);
      missing.forEach((t, i) => vectorOf.set(t, vs[i]!));
    };
    if (llmRun) {
      const llm = await llmRun;
      // On an LLM failure the rules' candidates stand as they are (nothing goes to review because of it).
      if (llm.error === undefined && (candidates.length > 0 || llm.candidates.length > 0)) {
        await embedMissing([...candidates, ...llm.candidates].map((c) => c.text));
        const similar = (a: string, b: string): boolean => cosineDistance(vectorOf.get(a)!, vectorOf.get(b)!) < LLM_AGREEMENT_DISTANCE;
        candidates = await mergeRuleAndLlm(candidates, llm.candidates, similar, analysis.dropped);
      }
    }
    if (candidates.length > 0) {
      await embedMissing(candidates.map((c) => c.text));
      const changed: string[] = [];
      const decisions = await this.storeCandidates(
        session,
        candidates,
        candidates.map((c) => vectorOf.get(c.text)!),
      );
      for (const decision of decisions) {
        report[decision.outcome === 'stored' ? 'stored' : decision.outcome]++;
        if (decision.id && decision.outcome !== 'dropped') changed.push(decision.id);
        if (explain || decision.outcome !== 'dropped') report.decisions.push(decision);
      }
      if (changed.length) this.events.changed?.([session.project_id], changed);
    }
    this.scheduleStatus();
    return report;
  }

  /**
   * The extract stage for one session: the project's known memories (seed 000's P2), the call, token
   * accounting and the status. Never throws.
   */
  private async extractWithLlm(provider: LlmProvider, session: SessionInput): Promise<ExtractResult> {
    const messages = await extractionMessages(session, this.clock);
    let known: string[] = [];
    try {
      const rows = await this.store.find(buildWhere({ project_ids: [session.project_id, GLOBAL_PROJECT], status: ['active', 'confirmed', 'pending'] }));
      known = selectKnown(rows.map((r) => r.memory));
    } catch (e) {
      this.log(`LLM extraction without known memories (${errorMessage(e)}).`);
    }
    const r = await extractWithLlm(provider, messages, known, {
      source_type: session.source_type,
      reviewScoreThreshold: this.config.pipeline.reviewScoreThreshold,
      signal: this.llmAbort.signal,
    });
    if (r.skipped || this.disposed) return r;
    const totals = this.llmUsage.record({ usage: r.usage, error: r.error });
    const tokens = `${r.usage.prompt_tokens}+${r.usage.completion_tokens} tokens${r.usage.estimated ? ' (estimated)' : ''}`;
    this.log(`LLM extraction (${provider.id}, ${known.length} known): ${r.error?.replace(/[.。]\s*$/, '') ?? `${r.candidates.length} candidate(s)`}; ${tokens}. ${LlmUsageCounter.describe(totals)}`);
    if (r.guard_redactions > 0) this.log(`The LLM prompt guard redacted ${r.guard_redactions} secret(s) the redact stage had missed.`);
    if (r.error !== this.llmError) {
      this.llmError = r.error;
      this.scheduleStatus();
    }
    return r;
  }

  /**
   * The dedup and store stages for a session's candidates, batched: one read of the candidates' ids, one
   * nearest-neighbour query per category (project, then global), then one write of the new memories and
   * one of the refreshed ones. Candidates are decided in order, so a candidate that repeats an earlier one
   * of the same session refreshes it instead of adding a second memory.
   */
  private async storeCandidates(session: SessionInput, cands: Candidate[], vectors: number[][], confirmedBy?: string): Promise<IngestDecision[]> {
    const project = session.project_id;
    const by = session.added_by ?? this.config.user;
    const limit = this.config.pipeline.dedupDistance;
    await this.writesBehind;
    const ids = cands.map((c) => memoryId(project, c.text));
    const byId = new Map((await this.store.get([...new Set(ids)])).map((m) => [m.id, m]));
    // Nearest stored neighbour of each candidate in its project and category, then among global memories.
    const nearest = new Map<number, Neighbour>();
    for (const scope of [project, GLOBAL_PROJECT]) {
      for (const category of new Set(cands.map((c) => c.category))) {
        const idx = cands.map((_c, i) => i).filter((i) => cands[i].category === category && !byId.has(ids[i]) && !nearest.has(i));
        if (idx.length === 0) continue;
        const hits = await this.store.queryMany(
          idx.map((i) => vectors[i]),
          buildWhere({ project_id: scope, category }),
          1,
        );
        idx.forEach((i, j) => {
          const h = hits[j]?.[0];
          if (h && h.distance < limit) nearest.set(i, h);
        });
      }
    }
    const now = this.now();
    const created: { memory: Memory; vector: number[] }[] = [];
    const refreshed = new Map<string, { before: Memory; after: Memory; note: string }>();
    const decisions: IngestDecision[] = [];
    cands.forEach((c, i) => {
      const base = { text: c.text, category: c.category, is_actionable: c.is_actionable, source_ref: c.source_ref, score: c.score };
      // What this candidate repeats: the same text stored, a near neighbour, or one created earlier in this batch.
      let existing: Memory | undefined = refreshed.get(ids[i])?.after ?? byId.get(ids[i]);
      let distance = 0;
      if (!existing && nearest.has(i)) {
        const n = nearest.get(i)!;
        existing = refreshed.get(n.memory.id)?.after ?? n.memory;
        distance = n.distance;
      }
      if (!existing) {
        for (const r of created) {
          if (r.memory.category !== c.category) continue;
          const d = r.memory.id === ids[i] ? 0 : cosineDistance(r.vector, vectors[i]);
          if (d < limit) {
            existing = r.memory;
            distance = d;
            break;
          }
        }
      }
      if (existing?.status === 'wrong') {
        decisions.push({ ...base, id: existing.id, outcome: 'dropped', reason: `blocked: matches ${existing.id}, which was marked wrong` });
        return;
      }
      if (existing) {
        const refs = [...new Set([...existing.source_ref, ...c.source_ref])].slice(-50);
        const after: Memory = { ...existing, last_seen_at: now, times_seen: existing.times_seen + 1, source_ref: refs, updated_at: now };
        const fresh = created.find((r) => r.memory.id === existing!.id);
        if (fresh) fresh.memory = after; // repeated within this session: still one new memory
        else refreshed.set(existing.id, { before: refreshed.get(existing.id)?.before ?? existing, after, note: distance > 0 ? `duplicate at cosine distance ${distance.toFixed(3)}` : 'same text seen again' });
        decisions.push({
          ...base,
          id: existing.id,
          outcome: 'refreshed',
          reason: `duplicate of ${existing.id}${distance > 0 ? ` (cosine distance ${distance.toFixed(3)} < ${limit})` : ' (same text)'}`,
        });
        return;
      }
      const memory: Memory = {
        id: ids[i],
        text: c.text,
        category: c.category,
        source_type: c.source_type ?? session.source_type,
        project_id: project,
        confidence_score: round(c.confidence),
        is_actionable: c.is_actionable,
        source_ref: [...new Set([...c.source_ref, ...(session.source_ref ?? [])])],
        status: c.pending ? 'pending' : confirmedBy ? 'confirmed' : 'active',
        ...(confirmedBy && !c.pending ? { confirmed_by: confirmedBy } : {}),
        created_at: now,
        updated_at: now,
        last_seen_at: now,
        times_seen: 1,
        added_by: by,
        reason: c.pending && c.pending_reason ? `${c.reason}; pending: ${c.pending_reason}` : c.reason,
        score: c.score,
        embedding_model: this.embedder.modelId,
        embedding_dim: vectors[i].length,
        use_count: 0,
      };
      created.push({ memory, vector: vectors[i] });
      decisions.push({ ...base, id: memory.id, outcome: c.pending ? 'pending' : 'stored', reason: memory.reason });
    });
    await this.store.upsert(created);
    await this.store.updateMetadata([...refreshed.values()].map((r) => r.after));
    this.audit.append([
      ...created.map((r) => ({ at: now, action: 'create' as const, memory_id: r.memory.id, project_id: project, by, changes: snapshot(r.memory) })),
      ...[...refreshed.values()].map((r) => ({
        at: now,
        action: 'refresh' as const,
        memory_id: r.after.id,
        project_id: r.after.project_id,
        by,
        changes: { times_seen: [r.before.times_seen, r.after.times_seen] as [unknown, unknown], last_seen_at: [r.before.last_seen_at, now] as [unknown, unknown] },
        note: r.note,
      })),
    ]);
    return decisions;
  }

  /** An explicit "remember this": redacted, deduplicated, stored (confirmed unless pending asked). */
  async remember(p: RememberParams): Promise<IngestDecision> {
    if (!p || typeof p.text !== 'string' || !p.text.trim()) throw new InvalidInputError('There is nothing to remember: the text is empty.');
    if (typeof p.project_id !== 'string' || !p.project_id) throw new InvalidInputError('remember needs a project_id.');
    if (p.category !== undefined && !isCategory(p.category)) throw new InvalidInputError(`Unknown category "${String(p.category)}".`);
    const { text } = await redactText(p.text.trim().slice(0, 2000));
    await this.requireModel();
    const [vector] = await this.embedder.embed([text]);
    const { session } = await redactSession<SessionInput>({
      project_id: p.project_id,
      source_type: p.source_type ?? 'manual',
      messages: [{ role: 'user', content: text }],
      added_by: p.added_by ?? this.config.user,
      source_ref: p.source_ref ?? [],
    });
    const candidate: Candidate = {
      text,
      category: p.category ?? guessCategory(text),
      source_type: p.source_type ?? 'manual',
      is_actionable: /\d/.test(text) && /[A-Za-z\u4e00-\u9fff]{2,}/.test(text),
      source_ref: session.source_ref ?? [],
      message_ids: [],
      reason: 'explicit: remembered on request',
      score: 8,
      confidence: p.pending ? 0.7 : 0.9,
      pending: !!p.pending,
      pending_reason: p.pending ? 'explicit request waits for review' : undefined,
    };
    // A person asked for it: unless review was requested, it is confirmed by them.
    const [decision] = await this.storeCandidates(session, [candidate], [vector], p.pending ? undefined : session.added_by);
    if (decision.id) this.events.changed?.([p.project_id], [decision.id]);
    this.scheduleStatus();
    return decision;
  }

  // ------------------------------------------------------------------ bulk import

  /**
   * Imports many ready-made memories: each text is redacted, embedded in batches of 64, deduplicated
   * against the store (same id, or a near neighbour in the same project and category; one matching a
   * memory marked wrong is blocked) and against the batch itself (earlier batches are already stored),
   * and upserted per batch. Duplicates are skipped, not refreshed. Cancellable between batches.
   */
  async bulkImport(
    memories: BulkImportMemory[],
    onProgress?: (done: number, total: number) => void,
    token?: { isCancellationRequested: boolean },
  ): Promise<BulkImportResult> {
    if (!Array.isArray(memories)) throw new InvalidInputError('import needs a memories array.');
    memories.forEach((m, i) => {
      if (!m || typeof m.text !== 'string' || !m.text.trim()) throw new InvalidInputError(`Memory ${i + 1} has no text.`);
      if (typeof m.project_id !== 'string' || !m.project_id) throw new InvalidInputError(`Memory ${i + 1} has no project_id.`);
      if (m.category !== undefined && !isCategory(m.category)) throw new InvalidInputError(`Memory ${i + 1} has an unknown category "${String(m.category)}".`);
      if (m.source_type !== undefined && !isSourceType(m.source_type)) throw new InvalidInputError(`Memory ${i + 1} has an unknown source_type "${String(m.source_type)}".`);
      if (m.created_at !== undefined && Number.isNaN(Date.parse(m.created_at))) throw new InvalidInputError(`Memory ${i + 1} has an invalid created_at "${m.created_at}".`);
    });
    await this.requireModel();
    const result: BulkImportResult = { imported: 0, duplicates: 0, blocked: 0, redactions: 0 };
    const seen = new Set<string>();
    const projects = new Set<string>();
    const batchSize = 64;
    for (let start = 0; start < memories.length; start += batchSize) {
      MnemoService.check(token);
      const batch: { m: BulkImportMemory; text: string; id: string; category: Category }[] = [];
      for (const m of memories.slice(start, start + batchSize)) {
        const r = await redactText(m.text.trim().slice(0, 2000));
        result.redactions += r.findings.reduce((n, f) => n + f.count, 0);
        const id = memoryId(m.project_id, r.text);
        if (seen.has(id)) {
          result.duplicates++;
          continue;
        }
        seen.add(id);
        batch.push({ m, text: r.text, id, category: m.category ?? guessCategory(r.text) });
      }
      const stored = new Map((await this.store.get(batch.map((b) => b.id))).map((x) => [x.id, x]));
      const fresh = batch.filter((b) => !stored.has(b.id));
      // The same text already stored: a duplicate, or blocked when that memory was marked wrong.
      for (const m of stored.values()) result[m.status === 'wrong' ? 'blocked' : 'duplicates']++;
      const vectors = fresh.length ? await this.embedder.embed(fresh.map((b) => b.text)) : [];
      // Nearest stored neighbour per item, one Chroma call per (project, category) group.
      const nearest = new Map<number, { memory: Memory; distance: number }>();
      const groups = new Map<string, number[]>();
      fresh.forEach((b, i) => {
        const k = JSON.stringify([b.m.project_id, b.category]);
        groups.set(k, [...(groups.get(k) ?? []), i]);
      });
      for (const idx of groups.values()) {
        const first = fresh[idx[0]!]!;
        const hits = await this.store.queryMany(
          idx.map((i) => vectors[i]!),
          buildWhere({ project_id: first.m.project_id, category: first.category }),
          1,
        );
        idx.forEach((i, j) => hits[j]?.[0] && nearest.set(i, hits[j][0]));
      }
      const now = this.now();
      const records: { memory: Memory; vector: number[] }[] = [];
      fresh.forEach((b, i) => {
        const near = nearest.get(i);
        if (near && near.distance < this.config.pipeline.dedupDistance) {
          result[near.memory.status === 'wrong' ? 'blocked' : 'duplicates']++;
          return;
        }
        const dup = records.some(
          (r) => r.memory.project_id === b.m.project_id && r.memory.category === b.category && cosineDistance(r.vector, vectors[i]!) < this.config.pipeline.dedupDistance,
        );
        if (dup) {
          result.duplicates++;
          return;
        }
        const created = b.m.created_at ? new Date(b.m.created_at).toISOString() : now;
        records.push({
          vector: vectors[i]!,
          memory: {
            id: b.id,
            text: b.text,
            category: b.category,
            source_type: b.m.source_type ?? 'import',
            project_id: b.m.project_id,
            confidence_score: 0.8,
            is_actionable: /\d/.test(b.text) && /[A-Za-z\u4e00-\u9fff]{2,}/.test(b.text),
            source_ref: [],
            status: 'active',
            created_at: created,
            updated_at: now,
            last_seen_at: created,
            times_seen: 1,
            added_by: this.config.user,
            reason: 'bulk import',
            score: 6,
            embedding_model: this.embedder.modelId,
            embedding_dim: vectors[i]!.length,
            use_count: 0,
          },
        });
      });
      await this.store.upsert(records);
      this.audit.append(
        records.map((r) => ({ at: now, action: 'import' as const, memory_id: r.memory.id, project_id: r.memory.project_id, by: this.config.user, changes: snapshot(r.memory), note: 'bulk import' })),
      );
      for (const r of records) projects.add(r.memory.project_id);
      result.imported += records.length;
      onProgress?.(Math.min(memories.length, start + batchSize), memories.length);
    }
    if (projects.size) this.events.changed?.([...projects]);
    this.scheduleStatus();
    return result;
  }

  // ------------------------------------------------------------------ recall

  async recall(p: RecallParams): Promise<RecallResult> {
    if (!p || typeof p.query !== 'string' || !p.query.trim()) throw new InvalidInputError('The recall query is empty.');
    if (!Array.isArray(p.project_ids)) throw new InvalidInputError('recall needs project_ids (the projects of the current workspace).');
    const topK = clampInt(p.top_k ?? this.config.recall.topK, 1, 50);
    const minConfidence = p.min_confidence ?? this.config.recall.minConfidence;
    const budget = p.token_budget ?? this.config.recall.tokenBudget;
    const projects = [...new Set([...p.project_ids, GLOBAL_PROJECT])];
    const { text: query } = await redactText(p.query.slice(0, 2000));
    await this.requireModel();
    const [vector] = await this.embedder.embed([query]);
    const vectorHits: RecallItem[] = (await this.nearestRecallable(vector, projects, minConfidence, topK))
      .map((n): RecallItem => ({ memory: n.memory, score: round(1 - n.distance), channel: 'vector' }))
      .filter((i) => i.score >= (p.min_similarity ?? this.config.recall.minSimilarity));
    const items = [...vectorHits];
    const best = vectorHits[0]?.score ?? 0;
    if (vectorHits.length === 0 || best < this.config.recall.weakSimilarity) {
      const entities = extractEntities(query);
      if (entities.length > 0) {
        const since = new Date(this.clock().getTime() - 7 * DAY_MS).toISOString();
        const logs = await this.store.find(
          buildWhere({ project_ids: projects.filter((x) => x !== GLOBAL_PROJECT), source_type: 'troubleshooting_log', status: RECALLABLE, since }),
        );
        for (const { memory } of logs) {
          const overlap = entityOverlap(entities, memory.text);
          if (overlap > 0 && !items.some((i) => i.memory.id === memory.id)) items.push({ memory, score: round(overlap), channel: 'rule' });
        }
      }
    }
    // Rank: vector hits by similarity, rule hits by entity overlap weighted by confidence; vector first on ties.
    items.sort((a, b) => rank(b) - rank(a));
    const { block, tokens, included } = formatBlock(
      items.map((i) => i.memory),
      budget,
      p.locale,
    );
    const kept = items.slice(0, included);
    if (p.mark_used !== false && kept.length > 0) {
      // Written behind the answer: recall is on an agent's hot path; reads below wait for it.
      const now = this.now();
      const used = kept.map((i) => ({ ...i.memory, last_used_at: now, use_count: i.memory.use_count + 1 }));
      this.writesBehind = this.writesBehind
        .then(() => this.store.updateMetadata(used))
        .catch((e: unknown) => this.log(`Marking recalled memories as used failed: ${errorMessage(e)}`));
    }
    return { items: kept, block, tokens };
  }

  /**
   * The top-k recallable memories of these projects nearest to a vector. Chroma's filtered query costs
   * time in proportion to the rows the filter matches (50 ms at 10k memories against 8 ms unfiltered), so
   * the nearest 10·k overall are fetched first and filtered here — exact, since any recallable memory
   * outside them is farther than all of them — and the filtered query runs only when fewer than k pass.
   */
  private async nearestRecallable(vector: number[], projects: string[], minConfidence: number, k: number): Promise<Neighbour[]> {
    const passes = (m: Memory) => projects.includes(m.project_id) && RECALLABLE.includes(m.status) && m.confidence_score > minConfidence;
    const wide = await this.store.query(vector, undefined, Math.max(50, k * 10));
    const hits = wide.filter((n) => passes(n.memory)).slice(0, k);
    if (hits.length === k || wide.length < Math.max(50, k * 10)) return hits;
    return this.store.query(vector, buildWhere({ project_ids: projects, status: RECALLABLE, min_confidence: minConfidence }), k);
  }

  // ------------------------------------------------------------------ browse

  async list(p: ListParams = {}): Promise<ListResult> {
    const all = await this.findFiltered(p);
    all.sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
    const offset = Math.max(0, p.offset ?? 0);
    const limit = clampInt(p.limit ?? 200, 1, 10_000);
    return { items: all.slice(offset, offset + limit), total: all.length };
  }

  private async findFiltered(f: MemoryFilter): Promise<Memory[]> {
    await this.writesBehind;
    const projectIds = f.project_id ? (f.include_global === true ? [f.project_id, GLOBAL_PROJECT] : [f.project_id]) : undefined;
    const rows = await this.store.find(buildWhere({ ...f, project_id: undefined, project_ids: projectIds }));
    return rows.map((r) => r.memory);
  }

  async get(id: string): Promise<Memory> {
    if (typeof id !== 'string' || !id) throw new InvalidInputError('A memory id is required.');
    await this.writesBehind;
    const [m] = await this.store.get([id]);
    if (!m) throw new NotFoundError(`No memory with id ${id}.`);
    return m;
  }

  async search(p: SearchParams): Promise<SearchResult> {
    if (!p || typeof p.query !== 'string' || !p.query.trim()) throw new InvalidInputError('The search query is empty.');
    const limit = clampInt(p.limit ?? 50, 1, 1000);
    if (p.mode === 'semantic') {
      await this.requireModel();
      const [vector] = await this.embedder.embed([p.query]);
      const projectIds = p.project_id ? [p.project_id, ...(p.include_global === false ? [] : [GLOBAL_PROJECT])] : undefined;
      const hits = await this.store.query(vector, buildWhere({ ...p, project_id: undefined, project_ids: projectIds }), limit);
      return { items: hits.map((h) => ({ memory: h.memory, score: round(1 - h.distance) })) };
    }
    const terms = p.query
      .toLowerCase()
      .split(/\s+/)
      .filter((t) => t.length > 0);
    const all = await this.findFiltered({ ...p, include_global: p.include_global ?? true });
    const items = all
      .map((memory) => {
        const hay = `${memory.text} ${memory.source_ref.join(' ')} ${memory.id}`.toLowerCase();
        const hits = terms.filter((t) => hay.includes(t)).length;
        return { memory, score: round(hits / terms.length) };
      })
      .filter((x) => x.score === 1)
      .sort((a, b) => b.memory.created_at.localeCompare(a.memory.created_at))
      .slice(0, limit);
    return { items };
  }

  // ------------------------------------------------------------------ feedback

  private async change(
    id: string,
    by: string | undefined,
    action: AuditEntry['action'],
    mutate: (m: Memory) => Memory,
    opts: { reembed?: boolean; note?: string } = {},
  ): Promise<Memory> {
    const before = await this.get(id);
    const now = this.now();
    const after = { ...mutate({ ...before }), updated_at: now };
    if (opts.reembed && after.text !== before.text) {
      await this.requireModel();
      const [vector] = await this.embedder.embed([after.text]);
      after.embedding_model = this.embedder.modelId;
      after.embedding_dim = vector.length;
      await this.store.upsert([{ memory: after, vector }]);
    } else {
      await this.store.updateMetadata([after]);
    }
    this.audit.append([{ at: now, action, memory_id: id, project_id: after.project_id, by: by ?? this.config.user, changes: diff(before, after), note: opts.note }]);
    this.events.changed?.([...new Set([before.project_id, after.project_id])], [id]);
    this.scheduleStatus();
    return after;
  }

  async confirm(p: FeedbackParams): Promise<Memory> {
    const by = p.by ?? this.config.user;
    return this.change(p.id, by, 'confirm', (m) => ({
      ...m,
      status: 'confirmed',
      confirmed_by: by,
      confidence_score: round(Math.max(m.confidence_score, Math.min(1, m.confidence_score + 0.1), 0.8)),
    }));
  }

  async markWrong(p: FeedbackParams): Promise<Memory> {
    const by = p.by ?? this.config.user;
    const at = this.now();
    return this.change(p.id, by, 'wrong', (m) => ({
      ...m,
      status: 'wrong',
      confidence_score: 0,
      wrong_by: by,
      wrong_at: at,
      // Whoever confirmed it is told, in their editor, the next time they open the project.
      ...(m.confirmed_by && m.confirmed_by !== by ? { notify_user: m.confirmed_by } : {}),
    }));
  }

  /** Memories this user confirmed that someone else has marked wrong since. */
  async notices(p: { user?: string; project_ids?: string[] }): Promise<Notice[]> {
    const user = p.user ?? this.config.user;
    const rows = await this.store.find(buildWhere({ project_ids: p.project_ids, status: ['wrong'] }));
    return rows
      .map((r) => r.memory)
      .filter((m) => m.notify_user === user)
      .map((memory) => ({ memory, by: memory.wrong_by ?? 'someone', at: memory.wrong_at ?? memory.updated_at }));
  }

  async ackNotices(p: { ids: string[]; user?: string }): Promise<number> {
    const user = p.user ?? this.config.user;
    const found = (await this.store.get(p.ids ?? [])).filter((m) => m.notify_user === user);
    await this.store.updateMetadata(found.map((m) => ({ ...m, notify_user: undefined })));
    return found.length;
  }

  // ------------------------------------------------------------------ decay and cleaning

  /** Previews (default) or applies monthly decay as of a date; archived under the floor, never deleted. */
  async decay(p: DecayParams = {}): Promise<DecayResult> {
    const asOf = p.as_of ? new Date(p.as_of) : this.clock();
    if (Number.isNaN(asOf.getTime())) throw new InvalidInputError(`"${p.as_of}" is not a date; use YYYY-MM-DD.`);
    const future = futureAsOfError(asOf, this.clock());
    if (future) throw new InvalidInputError(future);
    const all = (await this.store.find(buildWhere({ status: ['active', 'confirmed', 'pending'] }))).map((r) => r.memory);
    const steps = planDecay(all, asOf, this.config.decay);
    if (p.apply && steps.length > 0) {
      const byId = new Map(all.map((m) => [m.id, m]));
      const now = this.now();
      for (let i = 0; i < steps.length; i += 200) {
        const batch = steps.slice(i, i + 200);
        const updated = batch.map((st) => ({
          ...byId.get(st.id)!,
          confidence_score: st.after,
          decayed_through: st.anchor,
          ...(st.archive ? { status: 'archived' as const } : {}),
          updated_at: now,
        }));
        await this.store.updateMetadata(updated);
        this.audit.append(
          batch.map((st) => ({
            at: now,
            action: st.archive ? ('archive' as const) : ('decay' as const),
            memory_id: st.id,
            project_id: st.project_id,
            by: 'mnemo-decay',
            changes: {
              confidence_score: [st.before, st.after] as [unknown, unknown],
              ...(st.archive ? { status: [st.status, 'archived'] as [unknown, unknown] } : {}),
            },
            note: `${st.months} month(s) of decay as of ${asOf.toISOString()}${st.slow ? ' (slow: confirmed or recently used)' : ''}`,
          })),
        );
      }
      this.events.changed?.([...new Set(steps.map((st) => st.project_id))], steps.map((st) => st.id));
      this.scheduleStatus();
    }
    return {
      as_of: asOf.toISOString(),
      applied: !!p.apply,
      steps: steps.map(({ id, text, project_id, months, before, after, archive }) => ({ id, text, project_id, months, before, after, archive })),
    };
  }

  /** Memories under the threshold (not tombstones, not already archived): the preview before cleaning. */
  async cleanPreview(p: { project_id?: string; threshold?: number }): Promise<ListResult> {
    const threshold = p.threshold ?? 0.5;
    if (!(threshold > 0 && threshold <= 1)) throw new InvalidInputError('The threshold must be between 0 and 1.');
    return this.list({ project_id: p.project_id, status: ['active', 'pending', 'confirmed'], max_confidence: threshold, limit: 10_000 });
  }

  /** Archives or deletes the memories selected in the clean preview. */
  async clean(p: { ids: string[]; action: 'archive' | 'delete'; by?: string }): Promise<number> {
    if (p.action === 'delete') return this.delete(p.ids, p.by);
    if (p.action !== 'archive') throw new InvalidInputError('The clean action must be archive or delete.');
    let n = 0;
    for (const id of p.ids ?? []) {
      await this.change(id, p.by, 'archive', (m) => ({ ...m, status: 'archived' }));
      n++;
    }
    return n;
  }

  async update(p: UpdateParams): Promise<Memory> {
    if (!p || !p.patch || typeof p.patch !== 'object') throw new InvalidInputError('update needs a patch.');
    const patch = p.patch;
    if (patch.text !== undefined && (typeof patch.text !== 'string' || !patch.text.trim())) throw new InvalidInputError('The new text is empty.');
    if (patch.confidence_score !== undefined && !(patch.confidence_score >= 0 && patch.confidence_score <= 1)) {
      throw new InvalidInputError('Confidence must be between 0 and 1.');
    }
    if (patch.category !== undefined && !isCategory(patch.category)) throw new InvalidInputError(`Unknown category "${String(patch.category)}".`);
    const text = patch.text !== undefined ? (await redactText(patch.text.trim())).text : undefined;
    return this.change(
      p.id,
      p.by,
      'update',
      (m) => ({
        ...m,
        ...(text !== undefined ? { text } : {}),
        ...(patch.confidence_score !== undefined ? { confidence_score: round(patch.confidence_score) } : {}),
        ...(patch.is_actionable !== undefined ? { is_actionable: !!patch.is_actionable } : {}),
        ...(patch.source_ref !== undefined ? { source_ref: patch.source_ref.map(String) } : {}),
        ...(patch.category !== undefined ? { category: patch.category } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
      }),
      { reembed: true },
    );
  }

  async promote(p: FeedbackParams): Promise<Memory> {
    const m = await this.get(p.id);
    if (m.project_id === GLOBAL_PROJECT) return m;
    return this.change(p.id, p.by, 'promote', (x) => ({ ...x, project_id: GLOBAL_PROJECT, promoted_from: x.project_id }), {
      note: `promoted from ${m.project_id} to global`,
    });
  }

  async delete(ids: string[], by?: string): Promise<number> {
    if (!Array.isArray(ids) || ids.length === 0) throw new InvalidInputError('No memory ids to delete.');
    const found = await this.store.get(ids);
    if (found.length === 0) throw new NotFoundError(`No memory with id ${ids[0]}.`);
    await this.store.delete(found.map((m) => m.id));
    const now = this.now();
    this.audit.append(
      found.map((m) => ({ at: now, action: 'delete' as const, memory_id: m.id, project_id: m.project_id, by: by ?? this.config.user, changes: snapshot(m, true) })),
    );
    this.events.changed?.([...new Set(found.map((m) => m.project_id))], found.map((m) => m.id));
    this.scheduleStatus();
    return found.length;
  }

  // ------------------------------------------------------------------ re-embedding

  private reembedding = false;
  /** Writes done behind an answer (recall's "used" marks); every read waits for them first. */
  private writesBehind: Promise<void> = Promise.resolve();

  /**
   * Re-embeds every memory with the configured model into a new collection (keyed by model + dimension)
   * and switches over only when all are copied. Captures stay queued meanwhile. On cancel or failure the
   * partial collection is dropped and the store is as it was.
   */
  async reembed(p: ReembedParams = {}, token?: { isCancellationRequested: boolean }): Promise<ReembedResult> {
    if (this.reembedding) throw new InvalidInputError('A re-embedding is already running.');
    if (this.embedState.state !== 'ready') await this.loadModelOnce();
    if (this.embedState.state !== 'ready') throw new EmbeddingError(this.embedState.message);
    const dim = this.embedder.dimension();
    const model = this.embedder.modelId;
    const previous = this.store.active;
    if (previous && previous.model === model && previous.dim === dim) return { migrated: 0, model, dim };
    const target: ActiveCollection = { name: collectionNameFor(model, dim), model, dim };
    const progress = (message: string, percent?: number) => p.progressToken && this.events.progress?.({ token: p.progressToken, message, percent });
    this.reembedding = true;
    try {
      await this.store.dropCollection(target.name); // leftovers of an abandoned run
      await this.store.prepare(target);
      const all = previous ? await this.store.find(undefined) : [];
      progress(`Re-embedding ${all.length} memories with ${model}`, 0);
      const batchSize = 64;
      let done = 0;
      for (let i = 0; i < all.length; i += batchSize) {
        MnemoService.check(token);
        const batch = all.slice(i, i + batchSize).map((r) => r.memory);
        const vectors = await this.embedder.embed(batch.map((m) => m.text));
        await this.store.upsert(
          batch.map((m, j) => ({ memory: { ...m, embedding_model: model, embedding_dim: dim }, vector: vectors[j] })),
          target,
        );
        done += batch.length;
        progress(`Re-embedded ${done} of ${all.length} memories`, Math.round((done / all.length) * 100));
      }
      MnemoService.check(token);
      await this.store.switchTo(target);
      this.modelMismatch = undefined;
      this.audit.append([
        {
          at: this.now(),
          action: 'update',
          by: this.config.user,
          changes: { embedding_model: [previous?.model ?? null, model], embedding_dim: [previous?.dim ?? null, dim] },
          note: `re-embedded ${done} memories into ${target.name}${previous ? `; ${previous.name} kept` : ''}`,
        },
      ]);
      this.log(`Re-embedded ${done} memories with ${model}; ${target.name} is now active.`);
      progress(`Re-embedded ${done} memories`, 100);
      this.events.changed?.([...new Set(all.map((r) => r.memory.project_id))]);
      this.scheduleStatus();
      if (this.background) this.kickQueue();
      return { migrated: done, model, dim, previous: previous?.name };
    } catch (e) {
      await this.store.dropCollection(target.name).catch(() => undefined);
      throw e;
    } finally {
      this.reembedding = false;
    }
  }

  // ------------------------------------------------------------------ stats, audit

  async stats(projectId?: string): Promise<StatsResult> {
    await this.writesBehind;
    const all = (await this.store.find(buildWhere({ project_id: projectId }))).map((r) => r.memory);
    const since = this.clock().getTime() - 7 * DAY_MS;
    const byProject = new Map<string, ProjectStats>();
    for (const m of all) {
      let s = byProject.get(m.project_id);
      if (!s) {
        s = {
          project_id: m.project_id,
          total: 0,
          new_7d: 0,
          actionable: 0,
          pending: 0,
          by_status: { active: 0, pending: 0, confirmed: 0, wrong: 0, archived: 0 },
          by_category: { persona: 0, episodic: 0, instruction: 0 },
          confidence_histogram: new Array<number>(10).fill(0),
        };
        byProject.set(m.project_id, s);
      }
      s.total++;
      if (Date.parse(m.created_at) >= since) s.new_7d++;
      if (m.is_actionable) s.actionable++;
      if (m.status === 'pending') s.pending++;
      s.by_status[m.status]++;
      s.by_category[m.category]++;
      s.confidence_histogram[Math.min(9, Math.floor(m.confidence_score * 10))]++;
    }
    const projects = [...byProject.values()].sort((a, b) => a.project_id.localeCompare(b.project_id));
    return {
      projects,
      total: all.length,
      queued: this.queued,
      embedding_model: this.embedder.modelId,
      embedding_ready: this.modelReady,
      chroma: this.supervisor.isRemote ? `remote ${this.config.chromaUrl}` : `embedded (${this.store.describe()})`,
      llm_tokens: (({ prompt, completion, extractions }) => ({ prompt, completion, extractions }))(this.llmUsage.read()),
    };
  }

  auditList(p: { memory_id?: string; project_id?: string; limit?: number }): AuditEntry[] {
    return this.audit.query(p);
  }

  // ------------------------------------------------------------------ backup (sidecar/backup)

  /** The embedding provider; backup import re-embeds with it when a backup's model differs from the store's. */
  get embedding(): EmbeddingProvider {
    return this.embedder;
  }

  /** Memories changed outside the service's own methods (backup import): refresh those projects and the status. */
  notifyChanged(projectIds: string[], ids?: string[]): void {
    if (projectIds.length) this.events.changed?.(projectIds, ids);
    this.scheduleStatus();
  }

  /** Throws CancelledError when the token was cancelled. */
  static check(token?: { isCancellationRequested: boolean }): void {
    if (token?.isCancellationRequested) throw new CancelledError();
  }
}

function rank(i: RecallItem): number {
  return i.channel === 'vector' ? i.score + 0.001 : i.score * 0.9 * Math.max(0.5, i.memory.confidence_score);
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function clampInt(n: number, lo: number, hi: number): number {
  const v = Math.floor(Number(n));
  if (!Number.isFinite(v)) return lo;
  return Math.min(hi, Math.max(lo, v));
}

/** Category for an explicit fact when none is given: preferences/identity -> persona, rules/how-to -> instruction, else episodic. */
export function guessCategory(text: string): Category {
  if (/\b(i (always|never|prefer|like|use|am)|my (favou?rite|preference))\b|我(习惯|喜欢|偏好|一般|总是|是)/i.test(text)) return 'persona';
  if (/\b(always|never|must|should|don't|do not|use|set|run|rule)\b|必须|不要|应该|设为|设置|规则|流程/i.test(text)) return 'instruction';
  return 'episodic';
}

const TRACKED: (keyof Memory)[] = ['text', 'category', 'source_type', 'project_id', 'confidence_score', 'is_actionable', 'source_ref', 'status', 'confirmed_by'];

function diff(a: Memory, b: Memory): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const k of TRACKED) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out[k] = [a[k] ?? null, b[k] ?? null];
  }
  return out;
}

function snapshot(m: Memory, removed = false): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const k of TRACKED) if (m[k] !== undefined) out[k] = removed ? [m[k], null] : [null, m[k]];
  return out;
}
