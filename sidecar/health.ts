/**
 * The status the extension shows in its status bar (`mnemo/status`): one health level and one sentence,
 * from the store's health, the model gate, the last LLM extraction and the counts. Sent debounced and at
 * most once a second, so a burst of changes (a backfill processing sessions back to back) sends one status
 * a second, not two store reads per session.
 */
import type { ModelGate } from './core';
import { errorMessage } from './shared/errors';
import type { Health as HealthLevel, StatusParams } from './protocol';
import { type MemoryStore } from './store/memoryStore';
import { buildWhere } from './store/where';

/** A burst of changes within this sends one status. */
const DEBOUNCE_MS = 200;
/** Statuses are at least this far apart. */
const MIN_INTERVAL_MS = 1000;

export interface HealthDeps {
  store: MemoryStore;
  model: ModelGate;
  /** Captures waiting in the durable queue. */
  queued: () => number;
  /** Why the embedded Chroma server is not isolated from other local users, when it is not. */
  notIsolated: () => string | undefined;
  /** Of those, captures that failed (not for an unavailable model or store) and wait to be tried again. */
  failing: () => number;
  send: (s: StatusParams) => void;
}

export class Health {
  private storeState: { ok: boolean; message: string } = { ok: true, message: '' };
  /** The last extraction's failure (one sentence); cleared by the next success. */
  private llmError: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the last status was computed (epoch ms). */
  private lastAt = 0;
  private closed = false;

  constructor(private readonly deps: HealthDeps) {}

  /** The Chroma supervisor's view of the store. */
  setStore(ok: boolean, message: string): void {
    this.storeState = { ok, message };
    this.schedule();
  }

  /** The last LLM extraction's failure, or undefined after a success. */
  setLlmError(error: string | undefined): void {
    if (error === this.llmError) return;
    this.llmError = error;
    this.schedule();
  }

  /** Sends the status in 200 ms (at the earliest a second after the last one) unless a send is already due. */
  schedule(): void {
    if (this.closed || this.timer) return;
    const wait = Math.max(DEBOUNCE_MS, this.lastAt + MIN_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastAt = Date.now();
      void this.compute().then((s) => this.deps.send(s));
    }, wait);
    this.timer.unref?.();
  }

  async compute(): Promise<StatusParams> {
    const { store, model } = this.deps;
    let health: HealthLevel = 'ok';
    let message = 'Mnemo is ready.';
    let memory_count: number | undefined;
    let pending_count: number | undefined;
    try {
      memory_count = await store.count();
      pending_count = await store.count(buildWhere({ status: ['pending'] }));
    } catch (e) {
      health = 'error';
      message = `The memory store is unavailable: ${errorMessage(e)}`;
    }
    if (health === 'ok' && !this.storeState.ok) {
      health = 'warning';
      message = this.storeState.message;
    }
    if (health === 'ok' && model.state === 'error') {
      health = 'warning';
      message = `Embedding model unavailable (${model.error.replace(/\.$/, '')}); captures are queued and keyword search still works.`;
    } else if (health === 'ok' && model.mismatchMessage) {
      health = 'warning';
      message = model.mismatchMessage;
    } else if (health === 'ok' && model.state === 'loading') {
      message = 'Loading the embedding model; captures are queued meanwhile.';
    }
    if (health === 'ok' && this.llmError) {
      health = 'warning';
      message = `${this.llmError.replace(/[.。]\s*$/, '')}; Mnemo keeps learning with the rules alone.`;
    }
    const failing = this.deps.failing();
    if (health === 'ok' && failing > 0) {
      health = 'warning';
      message = `${failing} capture${failing === 1 ? '' : 's'} could not be processed; kept in the queue and tried again later (see the log).`;
    }
    const notIsolated = this.deps.notIsolated();
    if (health === 'ok' && notIsolated) {
      health = 'warning';
      message = `Mnemo is ready, but its memory store is not isolated: other local users can reach it (${notIsolated.replace(/[.。]\s*$/, '')}).`;
    }
    return { health, message, memory_count, pending_count, queued: this.deps.queued() };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
