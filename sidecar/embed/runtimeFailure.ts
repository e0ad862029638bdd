/**
 * The one failure of the local embedding runtime a person must act on differently: onnxruntime-node can be
 * loaded by only one worker thread per process ("Module did not self-register"). It surfaces two ways — as a
 * load error the worker reports, or as the worker thread dying when the binding is first loaded from an
 * unawaited path — and must read the same either way (the second way said "crashed; the next request
 * restarts it", which no restart fixes).
 */

const SECOND_THREAD = /did not self-register/;

/** Why onnxruntime-node failed to load, in words a person can act on. */
export function runtimeHint(cause: string): string {
  return SECOND_THREAD.test(cause)
    ? 'onnxruntime-node can be loaded by only one worker thread per process; restart the sidecar or use the default process transport'
    : 'reinstall the extension or set mnemo.embedding.provider to ollama or openai';
}

/** The sentence for a runtime that could not be loaded, `cause` being the first line of the error. */
export function runtimeLoadFailure(cause: string): string {
  const c = cause.trim().replace(/[.。]+$/, '');
  return `The local embedding runtime (transformers.js/onnxruntime-node) could not be loaded (${c}); ${runtimeHint(c)}.`;
}

/** The sentence for a worker that is gone (`why`: "crashed: …", "exited with code 1", "was killed by SIGKILL"). */
export function workerGone(why: string): string {
  return SECOND_THREAD.test(why)
    ? runtimeLoadFailure(why.replace(/^crashed:\s*/, ''))
    : `The embedding worker ${why}; the next request restarts it.`;
}
