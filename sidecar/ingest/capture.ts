/**
 * The capture worker: a captured session is redacted and appended to the durable queue (on disk before
 * the request returns), then processed in the background in order. While the model or the store is
 * unavailable — the model is loading or missing, the embedding worker crashed, Chroma is down — a capture
 * stays queued and is retried (backing off from 1 s to a minute); only a capture that fails for another
 * reason three times is dropped.
 */
import { join } from 'node:path';
import type { Core } from '../core';
import { EmbeddingError, StoreUnavailableError, errorMessage } from '../errors';
import { redactSession } from '../pipeline/redact';
import type { SessionInput } from '../pipeline/types';
import type { CaptureResult, IngestReport } from '../protocol';
import { openCaptureQueue, type DurableQueue } from '../queue';
import { failpoint } from '../util/failpoint';
import { validateSession } from './input';

export class CaptureWorker {
  private queueInstance: DurableQueue<SessionInput> | undefined;
  private draining: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Consecutive drains stopped by an unavailable model or store; sets the retry delay. */
  private unavailableStreak = 0;
  /** Told when a queued capture was processed (its report) or dropped after failing (no report). */
  private readonly processedListeners = new Set<(captureId: string, report?: IngestReport) => void>();

  constructor(
    private readonly core: Core,
    /**
     * Ingests one queued session (ingest.ts `process`); the queue id makes a replay after a crash idempotent.
     * `backlog`: more sessions wait behind it (an Import Chat), so its embedding is a bulk job.
     */
    private readonly process: (
      session: SessionInput,
      captureId: string,
      backlog: boolean,
    ) => Promise<IngestReport>,
    /** Process the queue in the background (default true; the CLI's one-shot commands turn it off). */
    private readonly background: boolean,
  ) {}

  /** This process's durable capture queue (opened on first use; adopts queues of crashed processes). */
  get queue(): DurableQueue<SessionInput> {
    this.queueInstance ??= openCaptureQueue<SessionInput>(join(this.core.config.dataDir, 'queue'));
    return this.queueInstance;
  }

  /** Captures waiting (0 before the queue was opened). */
  get queued(): number {
    return this.queueInstance?.size ?? 0;
  }

  /** Redacts and appends a session to the durable queue; returns once it is on disk. */
  async capture(session: SessionInput): Promise<CaptureResult> {
    validateSession(session);
    // Every free-text field (contents, ids, speakers, refs, added_by, session id) is redacted before it reaches disk.
    const { session: clean, redactions } = await redactSession({
      ...session,
      added_by: session.added_by ?? this.core.config.user,
    });
    const entry = this.queue.enqueue(clean, this.core.now());
    this.core.refreshStatus();
    this.kickInBackground();
    return { queue_id: entry.id, redactions };
  }

  /** Calls `fn` for every capture processed from now on (or dropped: no report); returns the unsubscribe. */
  onProcessed(fn: (captureId: string, report?: IngestReport) => void): () => void {
    this.processedListeners.add(fn);
    return () => this.processedListeners.delete(fn);
  }

  private processed(captureId: string, report?: IngestReport): void {
    for (const fn of this.processedListeners) fn(captureId, report);
  }

  /**
   * A project is wiped: its captures still waiting are dropped, and the queue file is rewritten without
   * them or anything already processed (nothing of the project stays on disk here). Returns how many waited.
   */
  forgetProject(project: string): number {
    const n = this.queue.discard((s) => s.project_id === project);
    this.core.refreshStatus();
    return n;
  }

  /** Starts draining when the queue is processed in the background. */
  kickInBackground(): void {
    if (this.background) this.kick();
  }

  /** Starts draining the queue unless already draining. */
  kick(): void {
    if (this.draining || this.core.disposed) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      this.core.refreshStatus();
    });
  }

  /** Processes queued sessions in order; stops (keeping them queued) while the model is unavailable. */
  async drain(): Promise<void> {
    const { core } = this;
    for (;;) {
      if (core.disposed || !core.model.ready) return;
      const next = this.queue.pending()[0];
      if (!next) return;
      try {
        const report = await this.process(next.payload, next.id, this.queue.size > 1);
        core.log.info(
          `Processed capture ${next.id.slice(0, 8)} (${next.payload.source_type}, ${next.payload.project_id}): ${report.stored} stored, ${report.refreshed} refreshed, ${report.pending} pending, ${report.dropped} dropped${report.skipped ? ` (${report.skipped})` : ''}`,
        );
        failpoint('capture-processed');
        this.queue.markDone(next.id);
        this.unavailableStreak = 0;
        this.processed(next.id, report);
      } catch (e) {
        if (e instanceof EmbeddingError || e instanceof StoreUnavailableError) {
          core.log.warn(`Capture ${next.id.slice(0, 8)} stays queued: ${errorMessage(e)}`);
          this.retryLater(); // also retried as soon as the model (re)loads
          return;
        }
        this.queue.markFailed(next.id, errorMessage(e));
        core.log.error(`Capture ${next.id.slice(0, 8)} failed: ${errorMessage(e)}`);
        if (next.attempts >= 3) {
          core.log.error(`Capture ${next.id.slice(0, 8)} dropped after 3 failed attempts.`);
          this.queue.markDone(next.id);
          this.processed(next.id);
        }
      }
    }
  }

  /** Drains again after a backoff (1 s, 2 s, 4 s … at most a minute) when processing in the background. */
  private retryLater(): void {
    if (!this.background || this.retryTimer || this.core.disposed) return;
    const delay = Math.min(60_000, 1000 * 2 ** this.unavailableStreak++);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.kick();
    }, delay);
    this.retryTimer.unref?.();
  }

  /** Waits until the queue is empty (or the timeout passes); returns how many remain. */
  async flush(timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.size > 0 && Date.now() < deadline) {
      if (!this.core.model.ready) await this.core.requireModel();
      this.kick();
      await Promise.race([this.draining, new Promise((r) => setTimeout(r, 100))]);
    }
    return this.queue.size;
  }

  /** Waits for the drain in flight, then closes the queue file. */
  async close(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.draining?.catch(() => undefined);
    this.queueInstance?.close();
  }
}
