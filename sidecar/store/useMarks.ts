/**
 * Recall's "used" marks (use_count, last_used_at), written behind the answer: coalesced per memory, each
 * write reading the current count and adding to it under the data folder's counter lock (another process's
 * recalls too), writing only those two fields (Chroma merges metadata keys). Reads show the uses not yet
 * written ({@link UseMarks.apply}), so no read waits for the writes behind.
 */
import type { Memory } from '../model';
import { errorMessage } from '../shared/errors';
import { LockTimeoutError, withLock } from '../util/fileLock';

/**
 * Recall's used-marks are written once recalls have been quiet this long (an agent asks its questions in
 * bursts: the next one is not answered while Chroma writes the last one's marks), or at the latest
 * {@link USED_MAX_WAIT_MS} after the first mark not written; any other write of the store, and dispose,
 * writes them first.
 */
const USED_QUIET_MS = 1000;
const USED_MAX_WAIT_MS = 10_000;

/** The fields recall's used-marks change. */
interface UsedMark {
  last_used_at: string;
  use_count: number;
}

/** What the marks need of the store: a read that does not add the marks, and a write of some fields. */
export interface UseMarksStore {
  read(ids: string[]): Promise<Memory[]>;
  updateFields(memories: Memory[], fields: readonly (keyof Memory)[]): Promise<void>;
}

export class UseMarks {
  /** Writes done behind an answer; every write of the store waits for them first ({@link settled}). */
  private behind: Promise<void> = Promise.resolve();
  /** Use counts being written now, by memory id (absolute values; see {@link apply}). */
  private readonly landing = new Map<string, UsedMark>();
  /** Uses a write has taken from {@link used} but not yet counted into {@link landing} (increments). */
  private taking = new Map<string, { n: number; at: string }>();
  /** Uses recalled but not yet written, per memory: coalesced into one increment each (see {@link mark}). */
  private used = new Map<string, { n: number; at: string }>();
  /** The pending write of {@link used} ({@link USED_QUIET_MS}), and when its first mark came. */
  private timer: { timer: NodeJS.Timeout; since: number } | undefined;

  constructor(
    private readonly store: UseMarksStore,
    /** The lock file of the use counters (shared by every process on the data folder). */
    private readonly lock: string,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * A memory as read from Chroma, with the uses recalled but not yet written (so nobody reads what was
   * just answered as it was before): the counts being written now (absolute, so a read after that write
   * landed counts nothing twice) plus the increments no write has counted yet.
   */
  apply(m: Memory): Memory {
    const landing = this.landing.get(m.id);
    const pending = [this.taking.get(m.id), this.used.get(m.id)];
    if (!landing && !pending[0] && !pending[1]) return m;
    let count = Math.max(m.use_count, landing?.use_count ?? 0);
    let last = m.last_used_at ?? '';
    if (landing && landing.last_used_at > last) last = landing.last_used_at;
    for (const p of pending) {
      if (!p) continue;
      count += p.n;
      if (p.at > last) last = p.at;
    }
    return { ...m, use_count: count, last_used_at: last || undefined };
  }

  /** Counts one use of each memory, written behind the answer (see the module's comment). */
  mark(ids: string[], at: string): void {
    for (const id of ids) this.used.set(id, { n: (this.used.get(id)?.n ?? 0) + 1, at });
    const since = this.timer?.since ?? Date.now();
    if (this.timer) clearTimeout(this.timer.timer);
    const wait = Math.max(0, Math.min(USED_QUIET_MS, since + USED_MAX_WAIT_MS - Date.now()));
    const timer = setTimeout(() => void this.settled(), wait);
    timer.unref(); // dispose writes them (settled)
    this.timer = { timer, since };
  }

  /** Memories deleted: their uses not yet written are dropped. */
  forget(ids: readonly string[]): void {
    for (const id of ids) this.used.delete(id);
  }

  /** Writes the marks not written yet, behind whatever is being written; resolves when all are written. */
  settled(): Promise<void> {
    if (this.timer) clearTimeout(this.timer.timer);
    this.timer = undefined;
    if (this.used.size === 0) return this.behind;
    this.behind = this.behind
      .then(() => this.flush())
      .catch((e: unknown) => this.log(`Marking recalled memories as used failed: ${errorMessage(e)}`));
    return this.behind;
  }

  private async flush(): Promise<void> {
    if (this.used.size === 0) return;
    const batch = this.used;
    this.used = new Map();
    this.taking = batch;
    const write = async () => {
      const fresh = await this.store.read([...batch.keys()]);
      const counted = fresh.map((m) => {
        const u = batch.get(m.id)!;
        const last = m.last_used_at && m.last_used_at > u.at ? m.last_used_at : u.at;
        return { ...m, use_count: m.use_count + u.n, last_used_at: last };
      });
      const marks = counted.map(
        (m) => [m.id, { use_count: m.use_count, last_used_at: m.last_used_at }] as const,
      );
      for (const [id, mark] of marks) this.landing.set(id, mark);
      if (this.taking === batch) this.taking = new Map();
      try {
        await this.store.updateFields(counted, ['use_count', 'last_used_at']);
      } finally {
        for (const [id, mark] of marks) if (this.landing.get(id) === mark) this.landing.delete(id);
      }
    };
    try {
      await withLock(this.lock, 10_000, write);
    } catch (e) {
      if (!(e instanceof LockTimeoutError)) throw e;
      // A process holding the counter lock for 10 s is stuck: count anyway rather than lose the uses.
      this.log(`${errorMessage(e)} Counting recalled uses without it.`);
      await write();
    } finally {
      if (this.taking === batch) this.taking = new Map();
    }
  }
}
