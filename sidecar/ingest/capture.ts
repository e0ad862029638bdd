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
import { MAX_CAPTURE_IDS } from '../model';
import { capSession, validateSession } from './input';
import type { CaptureIngest, CommittedSession, PreparedSession } from './ingest';

/** A capture whose memories are stored and whose turns wait to be kept with the next captures' (a backlog). */
interface Held {
  entry: QueueEntry<SessionInput>;
  committed: CommittedSession;
  /** When its memories were stored (epoch ms). */
  since: number;
}

/**
 * In a backlog, the turns of consecutive captures are kept in one write (a request to Chroma costs about the
 * same for 15 records as for 500: docs/benchmarks.md, "Capture backfill") of at most about this many turns…
 */
const TURNS_PER_WRITE = 500;
/**
 * …and of at most this many captures: the captures not yet done (one write of them in flight, as many held,
 * one being committed) are replayed after a crash, and a replay is told from a new sighting by the last
 * {@link MAX_CAPTURE_IDS} capture ids a memory keeps.
 */
const CAPTURES_PER_WRITE = Math.floor((MAX_CAPTURE_IDS - 1) / 2);
/**
 * Captures prepared (pipeline, embedding: the embedding worker's) while the one before them is committed
 * (Chroma's): with one, the commits waited 5.2 s of a 21 s backfill for the next to be ready.
 */
const PREPARED_AHEAD = 2;
/** …and held at most this long (ms), so what a backlog learns reaches recall soon. */
const HOLD_MS = 2000;
/** Live captures processed in a row before one queued ahead of them goes first ({@link CaptureWorker.due}). */
const LIVE_STREAK = 4;

/** Whether `p` settles (either way) within `ms`. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export class CaptureWorker {
  private queueInstance: DurableQueue<SessionInput> | undefined;
  private draining: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failingTimer: NodeJS.Timeout | undefined;
  /** Consecutive drains stopped by an unavailable model or store; sets the retry delay. */
  private unavailableStreak = 0;
  /** Captures that failed for another reason, by queue id: when each is due again (epoch ms). */
  private readonly failingUntil = new Map<string, number>();
  /** Captures of a conversation going on (a turn just written), by queue id: processed first ({@link due}). */
  private readonly live = new Set<string>();
  /** Live captures processed in a row: after {@link LIVE_STREAK} of them an older one goes first. */
  private liveStreak = 0;
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

  /**
   * Redacts and appends a session to the durable queue; returns once it is on disk. A `live` capture (a turn
   * just written in a conversation going on) is processed before the captures queued ahead of it, except
   * those of its own session ({@link due}).
   */
  async capture(session: SessionInput, opts: { live?: boolean } = {}): Promise<CaptureResult> {
    validateSession(session);
    const { session: capped, cut } = capSession(session);
    // Every free-text field (contents, ids, speakers, refs, added_by, session id) is redacted before it reaches disk.
    const { session: clean, redactions } = await redactSession({
      ...capped,
      added_by: capped.added_by ?? this.core.config.user,
    });
    const entry = this.queue.enqueue(clean, this.core.now());
    if (opts.live) this.live.add(entry.id);
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
   * capture is prepared (pipeline, embedding) while this one is committed (store), in the queue's order, and
   * the turns of consecutive captures are kept in one write ({@link keepHeld}); a capture is marked done only
   * once its turns are stored, so a crash in between replays it (idempotently, by its queue id).
   */
  async drain(): Promise<void> {
    const { core } = this;
    /** The captures after the one being committed, being prepared (in a backlog). */
    const ahead = new Map<string, Promise<PreparedSession>>();
    const held: Held[] = [];
    /** Captures committed in this drain: done, held, or being kept (never taken up again). */
    const committed = new Set<string>();
    // The turns of the captures before are written while the next captures' memories are committed (that
    // write takes no lock the commit needs, and commit reads no turns); one such write at a time.
    let keeping: Promise<boolean> | undefined;
    const keepAll = async () => (await (keeping ?? true)) && (await this.keepHeld(held));
    for (;;) {
      // Disposed, or the model gone: what is committed keeps its turns (the store is still open).
      if (core.disposed) return void (await keepAll());
      if (!core.model.ready) {
        if ((await keepAll()) && core.model.ready) continue; // it came back meanwhile: its kick() found this drain
        return;
      }
      const [next, ...following] = this.due(committed, 1 + PREPARED_AHEAD);
      if (!next) {
        if (!(await keepAll())) return;
        // Captures queued while the last turns were written: kick() did not start a drain (this one ran).
        if (this.due(committed, 1).length) continue;
        this.retryFailingLater();
        return;
      }
      // A live capture's embedding is not a bulk job queued behind the backlog's.
      const backlog = this.queue.size > 1 && !this.live.has(next.id);
      const prepared = ahead.get(next.id) ?? this.ingest.prepare(next.payload, backlog);
      for (const id of ahead.keys()) if (!following.some((f) => f.id === id)) ahead.delete(id);
      for (const f of following)
        if (!ahead.has(f.id)) {
          const p = this.ingest.prepare(f.payload, !this.live.has(f.id));
          void p.catch(() => undefined); // met again (and reported) when its turn comes
          ahead.set(f.id, p);
        }
      // The turns held keep their promise (written within HOLD_MS) while a slow capture is prepared.
      if (held.length && !(await settlesWithin(prepared, held[0]!.since + HOLD_MS - Date.now()))) {
        if (keeping && !(await keeping)) return;
        keeping = this.keepHeld(held);
      }
      try {
        const ready = await prepared;
        if (!this.queue.has(next.id)) {
          this.processed(next.id); // its project was wiped while it was prepared: nothing of it is stored
          continue;
        }
        committed.add(next.id);
        this.liveStreak = this.live.has(next.id) ? this.liveStreak + 1 : 0;
        held.push({ entry: next, committed: await this.ingest.commit(ready, next.id), since: Date.now() });
      } catch (e) {
        if (e instanceof EmbeddingError || e instanceof StoreUnavailableError) {
          core.log.warn(`Capture ${next.id.slice(0, 8)} stays queued: ${errorMessage(e)}`);
          this.retryLater(); // also retried as soon as the model (re)loads
          return void (await keeping);
        }
        this.queue.markFailed(next.id, errorMessage(e));
        const delay = failedCaptureDelay(next.attempts);
        this.failingUntil.set(next.id, Date.now() + delay);
        core.log.error(
          `Capture ${next.id.slice(0, 8)} failed (attempt ${next.attempts}): ${errorMessage(e)} It stays queued and is tried again in ${Math.round(delay / 1000)} s.`,
        );
        core.refreshStatus();
        this.processed(next.id);
        continue;
      }
      const turns = held.reduce((n, h) => n + h.entry.payload.messages.length, 0);
      if (
        !following.length ||
        turns >= TURNS_PER_WRITE ||
        held.length >= CAPTURES_PER_WRITE ||
        Date.now() - held[0]!.since >= HOLD_MS ||
        this.live.has(next.id)
      ) {
        if (keeping && !(await keeping)) return;
        keeping = this.keepHeld(held);
      }
    }
  }

  /**
   * Keeps the turns of the captures whose memories are stored (one write), then marks them done and says
   * what each taught. While the store or model is unavailable they stay queued (false), to be replayed.
   * A capture of a project wiped meanwhile keeps no turns.
   */
  private async keepHeld(held: Held[]): Promise<boolean> {
    const batch = held.splice(0);
    const wiped = batch.filter((h) => !this.queue.has(h.entry.id));
    for (const h of wiped) this.processed(h.entry.id);
    const kept = batch.filter((h) => !wiped.includes(h));
    if (kept.length === 0) return true;
    try {
      await this.ingest.keepTurns(kept.map((h) => h.committed));
    } catch (e) {
      this.core.log.warn(
        `${kept.length === 1 ? `Capture ${kept[0]!.entry.id.slice(0, 8)} stays` : `${kept.length} captures stay`} queued: ${errorMessage(e)}`,
      );
      this.retryLater();
      return false;
    }
    for (const { entry, committed } of kept) {
      const report = committed.report;
      this.core.log.info(
        `Processed capture ${entry.id.slice(0, 8)} (${entry.payload.source_type}, ${entry.payload.project_id}): ${report.stored} stored, ${report.refreshed} refreshed, ${report.pending} pending, ${report.dropped} dropped${report.skipped ? ` (${report.skipped})` : ''}`,
      );
      failpoint('capture-processed');
      this.queue.markDone(entry.id);
      this.failingUntil.delete(entry.id);
      this.unavailableStreak = 0;
      try {
        this.processed(entry.id, report, entry.payload);
        this.outcome?.(captureOutcome(entry.id, report, entry.payload));
      } catch (e) {
        // A listener that fails (a connection closing) must not stop the others being told, or the drain.
        this.core.log.warn(
          `Capture ${entry.id.slice(0, 8)}: telling what it taught failed: ${errorMessage(e)}`,
        );
      }
    }
    return true;
  }

  /**
   * The first `n` queued captures that are due (a failing one waits out its backoff), but not one
   * `committed`: in queue order, except that live captures come first, each after the captures of its own
   * session queued before it (a session is learned in the order it was said). A burst of older captures (a
   * backfill, last words released after ten quiet minutes) thus never keeps a new turn out of recall.
   */
  private due(committed: Set<string>, n: number): QueueEntry<SessionInput>[] {
    const now = Date.now();
    const ready = this.queue
      .pending()
      .filter((e) => !committed.has(e.id) && (this.failingUntil.get(e.id) ?? 0) <= now);
    for (const id of this.live) if (!this.queue.has(id)) this.live.delete(id);
    const live = ready.filter((e) => this.live.has(e.id));
    // A conversation that goes on for an hour must not hold the backlog back for an hour: after a streak of
    // live captures, the oldest other one goes first.
    const older = ready.find((e) => !this.live.has(e.id));
    if (live.length === 0 || (older && this.liveStreak >= LIVE_STREAK)) return ready.slice(0, n);
    const order: QueueEntry<SessionInput>[] = [];
    const taken = new Set<string>();
    const take = (e: QueueEntry<SessionInput>) => void (taken.add(e.id), order.push(e));
    for (const l of live) {
      for (const e of ready) {
        if (e === l) break;
        if (!taken.has(e.id) && sameSession(e.payload, l.payload)) take(e);
      }
      if (!taken.has(l.id)) take(l);
      if (order.length >= n) return order.slice(0, n);
    }
    for (const e of ready) if (!taken.has(e.id)) take(e);
    return order.slice(0, n);
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

  /**
   * Waits until at most `leave` captures are queued (by default none), or the timeout passes; returns how
   * many remain.
   */
  async flush(timeoutMs = 30_000, leave = 0): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.size > leave && Date.now() < deadline) {
      if (!this.core.model.ready) await this.core.requireModel();
      this.kick();
      let stopListening = (): void => {};
      const processed = new Promise<void>((resolve) => (stopListening = this.onProcessed(() => resolve())));
      await Promise.race([this.draining, processed, new Promise((r) => setTimeout(r, 100))]);
      stopListening();
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

/** Whether two captures are of the same conversation (project, source and session). */
function sameSession(a: SessionInput, b: SessionInput): boolean {
  return a.project_id === b.project_id && a.source_type === b.source_type && a.session_id === b.session_id;
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
