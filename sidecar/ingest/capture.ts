/**
 * The capture worker: a captured session is redacted and appended to the durable queue (on disk before
 * the request returns), then processed in the background in order. While the model or the store is
 * unavailable — the model is loading or missing, the embedding worker crashed, Chroma is down — a capture
 * stays queued and the queue is retried (backing off from 1 s to a minute). A capture that fails for
 * another reason is never dropped: it stays queued (across restarts) and is retried after a backoff of its
 * own (2 s, 4 s, 8 s … at most an hour) while the captures behind it go on; the status counts it.
 */
import { join } from 'node:path';
import type { Core } from '../core';
import { EmbeddingError, StoreUnavailableError, errorMessage } from '../shared/errors';
import { redactSession } from '../pipeline/redact';
import type { SessionInput } from '../pipeline/types';
import type { CaptureProcessedParams, CaptureResult, IngestReport } from '../protocol';
import { cutText } from '../shared/text';
import { openCaptureQueue, type DurableQueue, type QueueEntry } from '../queue';
import { failpoint } from '../util/failpoint';
import { capSession, validateSession } from './input';
import type { CaptureIngest, PreparedSession } from './ingest';

export class CaptureWorker {
  private queueInstance: DurableQueue<SessionInput> | undefined;
  private draining: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failingTimer: NodeJS.Timeout | undefined;
  /** Consecutive drains stopped by an unavailable model or store; sets the retry delay. */
  private unavailableStreak = 0;
  /** Captures that failed for another reason, by queue id: when each is due again (epoch ms). */
  private readonly failingUntil = new Map<string, number>();
  /** Told when a queued capture was processed (its report) or failed (no report: it stays queued and is tried again later, when a report may follow). */
  private readonly processedListeners = new Set<
    (captureId: string, report?: IngestReport, session?: SessionInput) => void
  >();

  constructor(
    private readonly core: Core,
    private readonly ingest: CaptureIngest,
    /** Process the queue in the background (default true; the CLI's one-shot commands turn it off). */
    private readonly background: boolean,
    /** Told what each processed capture taught (the extension says "nothing kept — why?" from it). */
    private readonly outcome?: (p: CaptureProcessedParams) => void,
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

  /** Captures kept after failing for a reason other than an unavailable model or store, retried later. */
  get failing(): number {
    return this.failingUntil.size;
  }

  /** Redacts and appends a session to the durable queue; returns once it is on disk. */
  async capture(session: SessionInput): Promise<CaptureResult> {
    validateSession(session);
    const { session: capped, cut } = capSession(session);
    // Every free-text field (contents, ids, speakers, refs, added_by, session id) is redacted before it reaches disk.
    const { session: clean, redactions } = await redactSession({
      ...capped,
      added_by: capped.added_by ?? this.core.config.user,
    });
    const entry = this.queue.enqueue(clean, this.core.now());
    this.core.refreshStatus();
    this.kickInBackground();
    return { queue_id: entry.id, redactions, ...(cut ? { messages_cut: cut } : {}) };
  }

  /**
   * Calls `fn` for every capture processed from now on (with its report and the session) or failed (no
   * report); returns the unsubscribe.
   */
  onProcessed(fn: (captureId: string, report?: IngestReport, session?: SessionInput) => void): () => void {
    this.processedListeners.add(fn);
    return () => this.processedListeners.delete(fn);
  }

  private processed(captureId: string, report?: IngestReport, session?: SessionInput): void {
    for (const fn of this.processedListeners) fn(captureId, report, session);
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

  /**
   * Processes queued sessions in order; stops (keeping them queued) while the model or store is
   * unavailable, and passes over a failing capture until its backoff is over. With a backlog, the next
   * capture is prepared (pipeline, embedding) while this one is committed (store), in the queue's order.
   */
  async drain(): Promise<void> {
    const { core } = this;
    let ahead: { id: string; prepared: Promise<PreparedSession> } | undefined;
    for (;;) {
      if (core.disposed || !core.model.ready) return;
      const [next, following] = this.due();
      if (!next) return this.retryFailingLater();
      const backlog = this.queue.size > 1;
      const prepared = ahead?.id === next.id ? ahead.prepared : this.ingest.prepare(next.payload, backlog);
      ahead = following && { id: following.id, prepared: this.ingest.prepare(following.payload, true) };
      void ahead?.prepared.catch(() => undefined); // met again (and reported) when its turn comes
      try {
        const report = await this.ingest.commit(await prepared, next.id);
        core.log.info(
          `Processed capture ${next.id.slice(0, 8)} (${next.payload.source_type}, ${next.payload.project_id}): ${report.stored} stored, ${report.refreshed} refreshed, ${report.pending} pending, ${report.dropped} dropped${report.skipped ? ` (${report.skipped})` : ''}`,
        );
        failpoint('capture-processed');
        this.queue.markDone(next.id);
        this.failingUntil.delete(next.id);
        this.unavailableStreak = 0;
        this.processed(next.id, report, next.payload);
        this.outcome?.(captureOutcome(next.id, report, next.payload));
      } catch (e) {
        if (e instanceof EmbeddingError || e instanceof StoreUnavailableError) {
          core.log.warn(`Capture ${next.id.slice(0, 8)} stays queued: ${errorMessage(e)}`);
          this.retryLater(); // also retried as soon as the model (re)loads
          return;
        }
        this.queue.markFailed(next.id, errorMessage(e));
        const delay = failedCaptureDelay(next.attempts);
        this.failingUntil.set(next.id, Date.now() + delay);
        core.log.error(
          `Capture ${next.id.slice(0, 8)} failed (attempt ${next.attempts}): ${errorMessage(e)} It stays queued and is tried again in ${Math.round(delay / 1000)} s.`,
        );
        core.refreshStatus();
        this.processed(next.id);
      }
    }
  }

  /** The first two queued captures that are due (a failing one waits out its backoff). */
  private due(): QueueEntry<SessionInput>[] {
    const now = Date.now();
    return this.queue
      .pending()
      .filter((e) => (this.failingUntil.get(e.id) ?? 0) <= now)
      .slice(0, 2);
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

  /** Drains again when the first failing capture is due (when processing in the background). */
  private retryFailingLater(): void {
    if (!this.background || this.failingTimer || this.core.disposed || this.failingUntil.size === 0) return;
    const due = Math.min(...this.failingUntil.values());
    this.failingTimer = setTimeout(
      () => {
        this.failingTimer = undefined;
        this.kick();
      },
      Math.max(0, due - Date.now()),
    );
    this.failingTimer.unref?.();
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
    if (this.failingTimer) clearTimeout(this.failingTimer);
    await this.draining?.catch(() => undefined);
    this.queueInstance?.close();
  }
}

/** How long a capture that failed `attempts` times waits before it is tried again: 2 s doubling, at most an hour. */
export function failedCaptureDelay(attempts: number): number {
  return Math.min(3_600_000, 2000 * 2 ** Math.max(0, Math.min(attempts, 20) - 1));
}

/** How many dropped candidates an outcome names, and how much of each. */
const OUTCOME_SAMPLE = 5;
const OUTCOME_TEXT_CHARS = 160;

/** What a processed capture taught, for the extension: the counts, and why when nothing was kept. */
export function captureOutcome(
  queueId: string,
  report: IngestReport,
  session: SessionInput,
): CaptureProcessedParams {
  return {
    queue_id: queueId,
    project_id: report.project_id,
    source_type: session.source_type,
    stored: report.stored,
    refreshed: report.refreshed,
    pending: report.pending,
    dropped: report.dropped,
    messages_read: report.messages_read,
    ...(report.skipped ? { skipped: report.skipped } : {}),
    dropped_sample: report.decisions
      .filter((d) => d.outcome === 'dropped')
      .slice(0, OUTCOME_SAMPLE)
      .map((d) => ({ text: cutText(d.text, OUTCOME_TEXT_CHARS), reason: d.reason })),
  };
}
