/**
 * Keeps up with the agents the person switched on, in the sidecar's background: every second it looks at
 * the transcripts written in the last hour (a size and a time, no read), every ten seconds at all of them
 * and for new ones, and captures a file that changed (capture.ts: from its cursor, holding back what is still
 * being written; a held file is looked at again until it settles). A new turn reaches the ingest queue a
 * couple of seconds after its file is written. A source being captured by a request (the backfill) is left
 * to it meanwhile. A file is read only when a read can give something new: it changed, or it holds messages
 * back and has just been quiet long enough for them to be learned ({@link SETTLE_MS}, {@link FINAL_QUIET_MS});
 * a file the cursors say was read whole at this size and time is not read again when watching starts. A file
 * written in the last minute is a conversation going on: read first, and its capture learned before any
 * older ones queued ({@link LIVE_MS}). After
 * a backfill of 300 sessions the first look read all 300 again and every look after it the 35 held ones:
 * 270-420 ms a second, where it now takes 25-40 ms (docs/benchmarks.md).
 */
import { lstat } from 'node:fs/promises';
import type { CaptureSourceId } from '../shared/agentSources';
import { FINAL_QUIET_MS, LIVE_MS, SETTLE_MS, type TranscriptCapture } from './capture';
import type { CaptureScope } from './scope';
import type { FileStamp } from './read';
import type { SourceEnv, TranscriptFile } from './types';

/** How often active transcripts are looked at. */
export const POLL_MS = 1_000;
/** How often every transcript is looked at and new ones are found. */
export const REDISCOVER_MS = 10_000;
/** A look reads older files for at most about this long (ms); the rest wait for the next look. */
const LOOK_BUDGET_MS = 1_000;
/** A transcript written within this long is active: looked at every {@link POLL_MS}. */
const ACTIVE_MS = 60 * 60_000;

export interface WatchConfig {
  env: SourceEnv;
  scope: CaptureScope;
  sources: CaptureSourceId[];
}

export class CaptureWatcher {
  private config: WatchConfig | undefined;
  private timer: NodeJS.Timeout | undefined;
  private files: TranscriptFile[] = [];
  private lastDiscovery = 0;
  /** `size:mtime` of each file as last captured. */
  private readonly seen = new Map<string, string>();
  /** When an unchanged file that holds messages back is worth reading again (epoch ms). */
  private readonly due = new Map<string, number>();
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly capture: TranscriptCapture,
    private readonly opts: {
      log: { info(l: string): void; warn(l: string): void };
      /** A request is capturing this source right now: leave it alone. */
      busy(source: CaptureSourceId): boolean;
      clock: () => Date;
      pollMs?: number;
      /** How long a look reads older files (ms; default {@link LOOK_BUDGET_MS}). */
      lookBudgetMs?: number;
    },
  ) {}

  /** Watches these sources for these folders (none: stops watching). */
  update(config: WatchConfig | undefined): number {
    this.config = config && config.sources.length ? config : undefined;
    this.lastDiscovery = 0;
    if (!this.config) {
      this.stop();
      return 0;
    }
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), this.opts.pollMs ?? POLL_MS);
      this.timer.unref?.();
    }
    void this.tick();
    return this.config.sources.length;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.files = [];
  }

  /** One look: rediscovery when due, then every file that may have changed (the look under way, if any). */
  tick(): Promise<void> {
    if (!this.config) return Promise.resolve();
    this.ticking ??= this.look(this.config).finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async look(cfg: WatchConfig): Promise<void> {
    const now = this.opts.clock().getTime();
    const full = now - this.lastDiscovery >= REDISCOVER_MS;
    if (full) {
      this.files = (await this.capture.discover(cfg.env, cfg.sources, cfg.scope)).files;
      this.lastDiscovery = now;
    }
    /** The files a read may give something new, with their `size:mtime` and modification time. */
    const toRead: { f: TranscriptFile; key: string; mtimeMs: number }[] = [];
    for (const f of this.files) {
      if (this.config !== cfg) return; // reconfigured meanwhile
      if (this.opts.busy(f.source)) continue;
      let key: string;
      let mtimeMs: number;
      let ino: number;
      try {
        const st = await lstat(f.path.replace(/#[^/#]*$/, '')); // a chat in a database: the database file
        if (f.path.includes('#') && st.isFile() && this.seen.has(f.path) && now - st.mtimeMs > ACTIVE_MS)
          continue;
        if (!full && now - st.mtimeMs > ACTIVE_MS && this.seen.has(f.path)) continue;
        key = `${st.size}:${st.mtimeMs}`;
        mtimeMs = st.mtimeMs;
        ino = st.ino;
      } catch {
        continue; // gone (retention): what was learned from it stays
      }
      const cursor = this.capture.cursors.get(f.source, f.path);
      const held = (cursor?.held ?? 0) > 0;
      if (!this.seen.has(f.path) && !held && cursor && readWhole(cursor.stamp, key, ino)) {
        this.seen.set(f.path, key); // read whole before watching began (the backfill, another process)
        continue;
      }
      if (this.seen.get(f.path) === key && (!held || now < (this.due.get(f.path) ?? 0))) continue;
      toRead.push({ f, key, mtimeMs });
    }
    // A conversation going on first (its file was just written), then the rest as found.
    const live = (r: { mtimeMs: number }) => now - r.mtimeMs < LIVE_MS;
    toRead.sort((a, b) => Number(live(b)) - Number(live(a)));
    let started: number | undefined;
    for (const { f, key, mtimeMs } of toRead) {
      if (this.config !== cfg) return;
      // A burst of older files is read over several looks, so the next look finds a new turn soon; at
      // least one older file is read in every look.
      if (!live({ mtimeMs })) {
        started ??= performance.now();
        if (performance.now() - started > (this.opts.lookBudgetMs ?? LOOK_BUDGET_MS)) return;
      }
      if (this.opts.busy(f.source)) continue;
      try {
        const o = await this.capture.captureFile(f, cfg.scope, { live: live({ mtimeMs }) });
        if (o.messages > 0)
          this.opts.log.info(`Captured ${o.messages} new message(s) from ${f.source} ${f.sessionId}.`);
        if (o.problem && !o.outOfScope) this.opts.log.warn(`Skipped ${f.path}: ${o.problem}.`);
        this.seen.set(f.path, key);
        // Held back and unchanged: a read gives more once the file has settled, then once it is final.
        if (o.held > 0)
          this.due.set(f.path, mtimeMs + (now - mtimeMs < SETTLE_MS ? SETTLE_MS : FINAL_QUIET_MS));
        else this.due.delete(f.path);
      } catch (e) {
        this.opts.log.warn(`Capturing ${f.path} failed: ${(e as Error)?.message ?? String(e)}`);
      }
    }
  }
}

/**
 * Whether a file is as the cursor saw it when it was last read (size, time, inode): what the runner checks
 * before it reads (with the first bytes too), without opening the file.
 */
function readWhole(stamp: FileStamp, key: string, ino: number): boolean {
  return `${stamp.size}:${stamp.mtimeMs}` === key && stamp.ino === ino;
}
