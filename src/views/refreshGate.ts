/**
 * When the views reload (no `vscode` import: unit-tested). A change is applied after a short quiet window
 * (`quietMs`, so a clean that archives many memories one by one is one reload), and never sooner than
 * `minIntervalMs` after the previous reload: while the sidecar learns from a 10k-message import it announces
 * a change for every session it processes, and the views then re-list at a bounded rate instead of once
 * per session. Nothing is lost: every change that arrives while a reload waits is merged into it, and a
 * change that arrives during the wait after a reload gets a reload of its own.
 */

/** What changed: these projects, or everything (`'all'`). */
export type PendingChange = Set<string> | 'all';

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class RefreshGate {
  private pending: PendingChange | undefined;
  private timer: unknown;
  private lastRun = -Infinity;

  constructor(
    private readonly run: (what: PendingChange) => void,
    private readonly quietMs = 50,
    private readonly minIntervalMs = 1000,
    private readonly timers: Timers = realTimers,
  ) {}

  /** A change to these projects (none given: everything may have changed). */
  request(projectIds?: readonly string[]): void {
    if (!projectIds?.length) this.pending = 'all';
    else if (this.pending !== 'all') {
      this.pending ??= new Set();
      for (const id of projectIds) this.pending.add(id);
    }
    if (this.timer !== undefined) return;
    const now = this.timers.now();
    const at = Math.max(now + this.quietMs, this.lastRun + this.minIntervalMs);
    this.timer = this.timers.setTimeout(() => this.flush(), at - now);
  }

  /** True while a reload is due. */
  get waiting(): boolean {
    return this.timer !== undefined;
  }

  /**
   * Applies a due reload now, whatever the interval (a person acting on the views — revealing a memory just
   * remembered — must see them current, and a reload landing after the reveal would drop its selection).
   */
  flushNow(): void {
    if (this.timer === undefined) return;
    this.timers.clearTimeout(this.timer);
    this.flush();
  }

  private flush(): void {
    this.timer = undefined;
    const what = this.pending;
    this.pending = undefined;
    if (what === undefined) return;
    this.lastRun = this.timers.now();
    this.run(what);
  }

  dispose(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }
}
