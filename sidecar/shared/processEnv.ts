/**
 * The environment of the Node processes Mnemo starts: the sidecar (from the editor) and its embedding
 * worker.
 *
 * glibc gives each thread that allocates its own malloc arena, up to 8 per core, and an arena keeps the
 * pages its freed blocks leave. ONNX Runtime's threads and Node's own (libuv, V8's helpers) each grew
 * one, so a bulk import left the worker and the sidecar ~40 MB larger than with two arenas each, at the
 * same speed (docs/benchmarks.md, "Bulk import's memory"). Chroma keeps the default: its queries were
 * slower with two. A value the user set is kept.
 */
export const MALLOC_ARENAS = '2';

/** Set beside `MALLOC_ARENA_MAX` when Mnemo chose it, so a process further down can tell it from the user's. */
const OURS = 'MNEMO_MALLOC_ARENAS';

/** What a child's environment adds to `base`: {@link MALLOC_ARENAS}, unless `base` sets its own. */
export function arenaEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return base.MALLOC_ARENA_MAX === undefined ? { MALLOC_ARENA_MAX: MALLOC_ARENAS, [OURS]: '1' } : {};
}

/** `base` (default: this process's environment) with {@link arenaEnv}. */
export function childEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, ...arenaEnv(base) };
}

/** `base` without the arenas {@link childEnv} chose (Chroma's environment); a value the user set is kept. */
export function defaultArenasEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = { ...base };
  if (env[OURS]) {
    delete env.MALLOC_ARENA_MAX;
    delete env[OURS];
  }
  return env;
}
