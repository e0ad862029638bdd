/**
 * The memory service, the composition root: one instance per sidecar (or CLI run). It builds the shared
 * context (core.ts) and the rooms that do the work — health.ts, ingest/, recall/, memories.ts, maintenance.ts,
 * reembed.ts, stats.ts, counts.ts, backup/ — and offers every protocol request as one method that hands it
 * to its room. Transport-free: server.ts binds it to a JSON-RPC connection, cli.ts calls it directly.
 */
import { join } from 'node:path';
import { AgentCapture, type CaptureRun } from './capture/room';
import type { SidecarConfig } from './config';
import { createLogger, ModelGate, type Core, type Logger, type LogLevel } from './core';
import type { EmbeddingProvider } from './embed/types';
import { Health } from './health';
import type { BackupPreview, ExportResult, ImportResult } from './backup/index';
import { exportRequest, importRequest, inspectRequest, type OnBackupProgress } from './backup/requests';
import { countMemories } from './counts';
import { bulkImport } from './ingest/bulkImport';
import { CaptureWorker } from './ingest/capture';
import { Ingest } from './ingest/ingest';
import { AuditLog } from './lifecycle/audit';
import { RecallLedger } from './lifecycle/ledger';
import { Maintenance } from './maintenance';
import { Review } from './review';
import type { LlmDeps, LlmProvider } from './llm/index';
import { Memories, type ReportParams, type ReportResult } from './memories';
import type { Memory } from './model';
import type { SessionInput } from './pipeline/types';
import type * as P from './protocol';
import type { DurableQueue } from './queue';
import { LazyLexical } from './store/lexical/lexical';
import { syncLexical } from './recall/lexicalSync';
import { evidence } from './recall/evidence';
import { recall } from './recall/recall';
import { listLedger, recordRecall } from './served';
import { stats } from './stats';
import { ChromaSupervisor } from './store/chromaServer';
import { EpisodeStore } from './store/episodeStore';
import { MemoryStore } from './store/memoryStore';
import { Reembedder } from './reembed';
import { importRulesRequest, serviceTarget } from './agents/rulesImport';

export { guessCategory } from './ingest/input';

export interface ServiceEvents {
  status(p: P.StatusParams): void;
  progress(p: P.ProgressParams): void;
  changed(projectIds: string[], ids?: string[]): void;
  /** A queued capture was processed: what it taught. */
  captured(p: P.CaptureProcessedParams): void;
  /** One log line and its level (a listener may ignore the level). */
  log(line: string, level: LogLevel): void;
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

type Token = { isCancellationRequested: boolean };

export class MnemoService implements Core {
  readonly config: SidecarConfig;
  readonly store: MemoryStore;
  readonly episodes: EpisodeStore;
  readonly supervisor: ChromaSupervisor;
  readonly audit: AuditLog;
  readonly ledger: RecallLedger;
  /** The embedding provider; backup import re-embeds with it when a backup's model differs from the store's. */
  readonly embedding: EmbeddingProvider;
  readonly model: ModelGate;
  readonly clock: () => Date;
  readonly log: Logger;
  disposed = false;
  private readonly events: Partial<ServiceEvents>;
  private readonly background: boolean;
  private readonly health: Health;
  private readonly capturer: CaptureWorker;
  private readonly ingester: Ingest;
  private readonly memories: Memories;
  private readonly maintenance: Maintenance;
  private readonly reembedder: Reembedder;
  private readonly agents: AgentCapture;
  private readonly review: Review;

  constructor(opts: ServiceOptions) {
    this.config = opts.config;
    this.embedding = opts.embedder;
    this.clock = opts.clock ?? (() => new Date());
    this.events = opts.events ?? {};
    this.background = opts.backgroundQueue ?? true;
    this.log = createLogger((line, level) => this.events.log?.(line, level));
    this.supervisor = new ChromaSupervisor({
      dataDir: this.config.dataDir,
      url: this.config.chromaUrl,
      token: this.config.chromaToken,
      allowUnisolated: this.config.chromaAllowUnisolated,
      log: (l) => this.log.info(l),
      onHealth: (ok, message) => this.health.setStore(ok, message),
    });
    this.store = new MemoryStore(this.supervisor, this.config.dataDir, (l) => this.log.warn(l));
    const lexicalFile = join(this.config.dataDir, 'index', 'lexical.sqlite');
    this.store.lexical.attach(new LazyLexical(lexicalFile, (l, level) => this.log[level](l), true));
    this.episodes = new EpisodeStore(this.store);
    this.audit = new AuditLog(join(this.config.dataDir, 'audit', 'audit.jsonl'));
    this.ledger = new RecallLedger(join(this.config.dataDir, 'ledger'));
    this.model = new ModelGate(this.embedding, this.store, this.log, () => {
      this.refreshStatus();
      this.capturer.kickInBackground();
      if (this.background && this.model.ready) void syncLexical(this);
    });
    this.health = new Health({
      store: this.store,
      model: this.model,
      queued: () => this.capturer.queued,
      failing: () => this.capturer.failing,
      notIsolated: () => this.supervisor.notIsolated,
      send: (s) => this.events.status?.(s),
    });
    this.ingester = new Ingest(this, {
      llmDeps: opts.llmDeps,
      llmProvider: opts.llmProvider,
      onLlmError: (e) => this.health.setLlmError(e),
    });
    this.capturer = new CaptureWorker(
      this,
      // Explained: a capture that keeps nothing tells the person why (the dropped candidates' rules).
      this.ingester.captureStages(),
      this.background,
      (p) => this.events.captured?.(p),
    );
    this.agents = new AgentCapture(this, this.capturer, this.background);
    this.memories = new Memories(this);
    this.maintenance = new Maintenance(this, this.memories);
    this.review = new Review(this, this.memories);
    this.reembedder = new Reembedder(
      this,
      (p) => this.events.progress?.(p),
      () => this.capturer.kickInBackground(),
    );
  }

  // ------------------------------------------------------------------ the shared context (core.ts)

  now(): string {
    return this.clock().toISOString();
  }

  /** Resolves when the model is ready; rejects with the reason when it is not available. */
  requireModel(): Promise<void> {
    return this.model.require();
  }

  /** Memories changed (also outside the service's own methods, e.g. backup import): refresh those projects and the status. */
  notifyChanged(projectIds: string[], ids?: string[]): void {
    if (projectIds.length) this.events.changed?.(projectIds, ids);
    this.refreshStatus();
  }
  refreshStatus(): void {
    this.health.schedule();
  }

  // ------------------------------------------------------------------ lifecycle

  /** Connects to Chroma and starts loading the model in the background. */
  async start(): Promise<void> {
    if (this.background) void this.queue; // open it now: adopt what a crashed sidecar left
    await this.supervisor.ensure();
    // The one first load: a request arriving meanwhile waits for it (ModelGate.require) instead of
    // starting a second one, which would check the whole store against the lexical index again.
    void this.model.loadOnceOnly();
    this.refreshStatus();
    if (this.background) [this.maintenance, this.review].forEach((r) => r.startTimers());
  }

  /** Applies settings that need no restart (thresholds, recall, decay, backup, LLM). */
  updateSettings(next: SidecarConfig): void {
    const { pipeline, recall, episodes, ledger, decay, review, backup } = next;
    Object.assign(this.config, { pipeline, recall, episodes, ledger, decay, review, backup });
    this.ingester.useLlm(next.llm);
    this.log.info('Settings updated (pipeline, recall, decay).');
  }
  async dispose(): Promise<void> {
    this.disposed = true;
    this.ingester.dispose();
    this.agents.dispose();
    this.model.close();
    this.maintenance.dispose();
    this.review.dispose();
    this.health.close();
    await this.capturer.close();
    await this.store.settled();
    await this.store.lexical.index?.close();
    this.audit.close();
    this.ledger.close();
    await this.embedding.dispose().catch(() => undefined);
    await this.supervisor.stop();
    this.store.disconnect();
  }
  computeStatus(): Promise<P.StatusParams> {
    return this.health.compute();
  }

  // ------------------------------------------------------------------ capture and ingest (ingest/)

  /** This process's durable capture queue (opened on first use; adopts queues of crashed processes). */
  get queue(): DurableQueue<SessionInput> {
    return this.capturer.queue;
  }
  capture(p: P.CaptureSessionParams): Promise<P.CaptureResult> {
    const { live, ...session } = p ?? ({} as P.CaptureSessionParams);
    return this.capturer.capture(session, { live: live === true });
  }
  flush(timeoutMs?: number): Promise<number> {
    return this.capturer.flush(timeoutMs);
  }
  ingest(p: P.IngestParams): Promise<P.IngestReport> {
    return this.ingester.ingest(p);
  }
  remember(p: P.RememberParams): Promise<P.IngestDecision> {
    return this.ingester.remember(p);
  }
  importRules(p: P.RulesImportParams): Promise<P.RulesImportResult> {
    return importRulesRequest(serviceTarget(this), p);
  }
  bulkImport(
    memories: P.BulkImportMemory[],
    onProgress?: (done: number, total: number) => void,
    token?: Token,
  ): Promise<P.BulkImportResult> {
    return bulkImport(this, memories, onProgress, token);
  }

  // ------------------------------------------------------------------ agents' transcripts (capture/)

  sourcesList(p: P.SourcesParams): Promise<P.SourcesListResult> {
    return this.agents.list(p);
  }
  sourcesCapture(p: P.SourcesCaptureParams, run?: CaptureRun): Promise<P.SourcesCaptureResult> {
    return this.agents.capture(p, run);
  }
  sourcesConfigure(p: P.SourcesConfigureParams): { watching: number } {
    return this.agents.configure(p);
  }

  // ------------------------------------------------------------------ recall (recall/)

  recall(p: P.RecallParams): Promise<P.RecallResult> {
    return recall(this, p).then((r) => recordRecall(this, p, r));
  }
  ledgerList(p: P.LedgerListParams): Promise<P.LedgerListResult> {
    return listLedger(this, p);
  }
  evidence(p: P.EvidenceParams): Promise<P.EvidenceResult> {
    return evidence(this, p);
  }

  // ------------------------------------------------------------------ browse, search, mutations (memories.ts)

  list(p: P.ListParams = {}): Promise<P.ListResult> {
    return this.memories.list(p);
  }
  get(id: string): Promise<Memory> {
    return this.memories.get(id);
  }
  search(p: P.SearchParams): Promise<P.SearchResult> {
    return this.memories.search(p);
  }
  confirmFile(p: P.ConfirmFileParams): Promise<P.ConfirmFileResult> {
    return this.memories.confirmFile(p);
  }
  confirm(p: P.FeedbackParams): Promise<Memory> {
    return this.memories.confirm(p);
  }
  markWrong(p: P.FeedbackParams): Promise<Memory> {
    return this.memories.markWrong(p);
  }
  update(p: P.UpdateParams): Promise<Memory> {
    return this.memories.update(p);
  }
  report(p: ReportParams): Promise<ReportResult> {
    return this.memories.report(p);
  }
  promote(p: P.FeedbackParams): Promise<Memory> {
    return this.memories.promote(p);
  }
  delete(ids: string[], by?: string): Promise<number> {
    return this.memories.delete(ids, by);
  }
  wipeProject(p: P.WipeProjectParams): Promise<P.WipeProjectResult> {
    return this.memories.wipeProject(p, (project) => this.capturer.forgetProject(project));
  }
  notices(p: { user?: string; project_ids?: string[] }): Promise<P.Notice[]> {
    return this.memories.notices(p);
  }
  ackNotices(p: { ids: string[]; user?: string }): Promise<number> {
    return this.memories.ackNotices(p);
  }
  auditList(p: { memory_id?: string; project_id?: string; limit?: number }): P.AuditEntry[] {
    return this.memories.auditList(p);
  }
  reviewApply(p: P.ReviewApplyParams): Promise<P.ReviewApplyResult> {
    return this.review.apply(p);
  }
  reviewUndo(p: P.ReviewUndoParams): Promise<{ restored: number }> {
    return this.review.undo(p);
  }

  // ------------------------------------------------------------------ maintenance (maintenance.ts, reembed.ts)

  decay(p: P.DecayParams = {}): Promise<P.DecayResult> {
    return this.maintenance.decay(p);
  }
  cleanPreview(p: { project_id?: string; threshold?: number }): Promise<P.ListResult> {
    return this.maintenance.cleanPreview(p);
  }
  clean(p: { ids: string[]; action: 'archive' | 'delete'; by?: string }): Promise<number> {
    return this.maintenance.clean(p);
  }
  reembed(p: P.ReembedParams = {}, token?: Token): Promise<P.ReembedResult> {
    return this.reembedder.reembed(p, token);
  }

  // ------------------------------------------------------------------ stats, counts, backup (stats.ts, counts.ts, backup/)

  stats(projectId?: string): Promise<P.StatsResult> {
    const deps = { queued: () => this.capturer.queued, chroma: () => this.supervisor.describe() };
    return stats(this, { ...deps, llmUsage: this.ingester.llmUsage }, projectId);
  }
  counts(f: P.MemoryFilter): Promise<P.CountsResult> {
    return countMemories(this.store, f);
  }

  backupExport(p: P.BackupExportParams, onProgress?: OnBackupProgress, token?: Token): Promise<ExportResult> {
    return exportRequest(this, p, onProgress, token);
  }
  backupInspect(p: P.BackupInspectParams): Promise<BackupPreview> {
    return inspectRequest(this, p);
  }
  backupImport(p: P.BackupImportParams, onProgress?: OnBackupProgress, token?: Token): Promise<ImportResult> {
    return importRequest(this, p, onProgress, token);
  }
}
