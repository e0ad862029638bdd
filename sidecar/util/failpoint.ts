/**
 * Crash points for the reliability suite: when `MNEMO_FAILPOINT` names one, the process kills itself
 * with SIGKILL right there, as a power cut or `kill -9` would at that exact moment (timing a kill from
 * outside cannot hit a window of a few milliseconds reliably). Unset in every normal run: a no-op.
 *
 * - `store-written`: a session's memories are in Chroma, their audit entries not yet appended.
 * - `capture-processed`: a queued capture was processed, not yet marked done in the queue.
 * - `chroma-spawned`: the Chroma server this process spawned answers, its server file is not yet written.
 */
export type Failpoint = 'store-written' | 'capture-processed' | 'chroma-spawned';

export function failpoint(name: Failpoint): void {
  if (process.env.MNEMO_FAILPOINT === name) process.kill(process.pid, 'SIGKILL');
}
