/**
 * Long CPU work on the sidecar's one thread in slices: after each slice of about {@link SLICE_MS} the work
 * gives the event loop a turn, so a request that arrived meanwhile (`mnemo/status`, `mnemo/stats/get`,
 * recall) is answered while a 1 MB capture is processed, instead of after it.
 */
import { performance } from 'node:perf_hooks';

/** How long a slice of work runs before the event loop gets a turn, in milliseconds. */
export const SLICE_MS = 20;

/** Counts the time since the last turn of the event loop; {@link Slices.turn} gives it one when due. */
export class Slices {
  private since = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Resolves at once while the slice lasts; after it, on the event loop's next turn (I/O first). */
  async turn(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await eventLoopTurn();
    this.since = performance.now();
  }
}

/**
 * Resolves after the event loop has polled for I/O once (a request that arrived is read and started):
 * between two long steps of work. Two immediates: one set during the poll phase runs in that same
 * iteration's check phase, before any new I/O is read; the second runs only after a whole iteration.
 */
export async function eventLoopTurn(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Runs a generator of steps to its end, giving the event loop a turn between slices; returns its result. */
export async function runInSlices<T>(steps: Generator<unknown, T>, slices = new Slices()): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await slices.turn();
  }
}

/** Runs a generator of steps to its end at once (the synchronous twin of {@link runInSlices}). */
export function runAtOnce<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
