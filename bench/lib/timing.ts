/**
 * Timing of the product's own calls for the bench scripts (bench/run.ts's split, bench/ingestProfile.ts,
 * bench/bulkProfile.ts): a method is wrapped so that every call records when it ran.
 */

/** One timed call: what it was, its start and end (`performance.now()`), and how many items its first argument held. */
export interface Span {
  what: string;
  t0: number;
  t1: number;
  n?: number;
}

/** Wraps `obj[name]` (a method returning a promise or a value) so every call pushes a {@link Span}. */
export function timeMethod<T extends object>(
  obj: T,
  name: keyof T & string,
  what: string,
  spans: Span[],
): void {
  const fn = (obj[name] as (...a: unknown[]) => unknown).bind(obj);
  (obj as Record<string, unknown>)[name] = (...a: unknown[]) => {
    const t0 = performance.now();
    const n = Array.isArray(a[0]) ? a[0].length : undefined;
    const done = (): void =>
      void spans.push({ what, t0, t1: performance.now(), ...(n !== undefined ? { n } : {}) });
    const r = fn(...a);
    if (r instanceof Promise) return r.finally(done);
    done();
    return r;
  };
}
