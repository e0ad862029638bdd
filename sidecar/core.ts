/**
 * The small context every room of the service works against (health, ingest, recall, memories,
 * maintenance, re-embed, stats, backup): the configuration, the store, the audit log, the embedding
 * provider behind its model gate, the clock, change notifications and the log. Rooms take a `Core`
 * instead of `this` of one big class; service.ts builds the one instance and composes the rooms.
 */
import type { SidecarConfig } from './config';
import type { EmbeddingProvider } from './embed/types';
import { EmbeddingError, errorMessage, StoreUnavailableError } from './shared/errors';
import type { AuditLog } from './lifecycle/audit';
import type { RecallLedger } from './lifecycle/ledger';
import type { EpisodeStore } from './store/episodeStore';
import type { MemoryStore } from './store/memoryStore';

/** Severity of a log line; the extension shows each in its LogOutputChannel at that level. */
export type LogLevel = 'error' | 'warn' | 'info';

/** The sidecar's log: one line per event, with a level. */
export interface Logger {
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
}

/** A logger over a sink that takes the line and its level. */
export function createLogger(sink: (line: string, level: LogLevel) => void): Logger {
  return { info: (l) => sink(l, 'info'), warn: (l) => sink(l, 'warn'), error: (l) => sink(l, 'error') };
}

export interface Core {
  readonly config: SidecarConfig;
  readonly store: MemoryStore;
  /** Every turn of every ingested session, verbatim (redacted): the evidence. */
  readonly episodes: EpisodeStore;
  readonly audit: AuditLog;
  /** What was served to agents and people (recalls, reads, reports): erased with what it names. */
  readonly ledger: RecallLedger;
  /** The embedding provider; use it only after {@link requireModel} (or {@link ModelGate.ready}). */
  readonly embedding: EmbeddingProvider;
  readonly model: ModelGate;
  readonly clock: () => Date;
  readonly log: Logger;
  /** The current time as UTC ISO-8601 (from the clock). */
  now(): string;
  /** Resolves when the model is loaded and matches the store's active collection; rejects with the reason. */
  requireModel(): Promise<void>;
  /** Tells the extension which projects changed (tree refresh) and refreshes the status counts. */
  notifyChanged(projectIds: string[], ids?: string[]): void;
  /** Recomputes and sends the status soon (debounced). */
  refreshStatus(): void;
  /** True once the service is disposing: background work stops. */
  readonly disposed: boolean;
}

/** `storeDown`: the load failed because the store could not be reached (not the model): said as such. */
type EmbedState = { state: 'loading' | 'ready' | 'error'; message: string; storeDown?: boolean };

/**
 * The gate in front of the embedding model: loads it in the background, retries a failed load every
 * minute, and knows whether the store's active collection was built with the configured model.
 */
export class ModelGate {
  private embedState: EmbedState = { state: 'loading', message: 'Loading the embedding model.' };
  private mismatch: string | undefined;
  private loadOnce: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly embedder: EmbeddingProvider,
    private readonly store: MemoryStore,
    private readonly log: Logger,
    /** Called after every load attempt (success or failure): refresh the status, drain the queue. */
    private readonly onSettled: () => void,
  ) {}

  get state(): EmbedState['state'] {
    return this.embedState.state;
  }

  /** Why the model is unavailable, when its state is error. */
  get error(): string {
    return this.embedState.message;
  }

  /** Set when the store was built with another model than the configured one. */
  get mismatchMessage(): string | undefined {
    return this.mismatch;
  }

  get ready(): boolean {
    return this.embedState.state === 'ready' && !this.mismatch;
  }

  /** Loads the model (and picks the store's collection for it); never throws. */
  async load(): Promise<void> {
    try {
      await this.embedder.ready();
      const matches = await this.store.useModel(this.embedder.modelId, this.embedder.dimension());
      this.mismatch = matches
        ? undefined
        : `The store was built with ${this.store.active!.model} (${this.store.active!.dim} dimensions) but ${this.embedder.modelId} is configured; run "Mnemo: Re-embed Memories" to switch.`;
      this.embedState = { state: 'ready', message: '' };
      this.log.info(
        `Embedding model ready: ${this.embedder.modelId} (${this.embedder.dimension()} dimensions)`,
      );
    } catch (e) {
      const storeDown = e instanceof StoreUnavailableError;
      this.embedState = { state: 'error', message: errorMessage(e), storeDown };
      this.log.error(`${storeDown ? 'Memory store' : 'Embedding model'} unavailable: ${errorMessage(e)}`);
      if (!this.closed) {
        this.retryTimer = setTimeout(() => {
          this.embedState = { state: 'loading', message: 'Loading the embedding model.' };
          // the load a request arriving meanwhile waits for (require)
          this.loadOnce = this.load();
        }, 60_000);
        this.retryTimer.unref?.();
      }
    }
    this.onSettled();
  }

  /** The load in progress or last settled, started once (callers that arrive while the model loads wait for it). */
  loadOnceOnly(): Promise<void> {
    this.loadOnce ??= this.load();
    return this.loadOnce;
  }

  /** Resolves when the model is ready; rejects with the reason when it is not available. */
  async require(): Promise<void> {
    if (this.embedState.state === 'loading') await this.loadOnceOnly();
    if (this.embedState.state === 'error')
      throw this.embedState.storeDown
        ? new StoreUnavailableError(this.embedState.message)
        : new EmbeddingError(this.embedState.message);
    if (this.mismatch) throw new EmbeddingError(this.mismatch);
  }

  /** The store now uses the configured model (after a re-embed). */
  matched(): void {
    this.mismatch = undefined;
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }
}
