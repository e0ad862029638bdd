/**
 * The environment of the processes Mnemo starts (the sidecar from the editor, the embedding worker and
 * Chroma from the sidecar).
 *
 * glibc gives each thread that allocates its own malloc arena, up to 8 per core, and an arena keeps the
 * pages its freed blocks leave. ONNX Runtime's threads, Chroma's and Node's own (libuv, V8's helpers)
 * each grew one, so a bulk import left ~30 MB more resident across the three processes than with two
 * arenas per process, at the same speed (docs/benchmarks.md, "Bulk import's memory"). A value the user
 * set is kept.
 */
export const MALLOC_ARENAS = '2';

/** `base` (default: this process's environment) with {@link MALLOC_ARENAS}, unless it sets its own. */
export function childEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, MALLOC_ARENA_MAX: base.MALLOC_ARENA_MAX ?? MALLOC_ARENAS };
}
