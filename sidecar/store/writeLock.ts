/**
 * The data folder's write lock: a dedup decision and the writes it leads to (ingest, remember, bulk
 * import) run alone on the folder, so two processes ingesting the same facts at once never both find
 * "nothing similar yet" and each add a near-duplicate. (Recall's use marks take the counter lock, never
 * this one: no cycle.)
 */
import { StoreUnavailableError } from '../shared/errors';
import { isNoSpace, writeFailure } from '../util/append';
import { LockTimeoutError, withLock } from '../util/fileLock';

/** How long a writer waits for another process's write before the store counts as unavailable. */
const WRITE_LOCK_WAIT_MS = 120_000;

export async function underWriteLock<T>(lockFile: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await withLock(lockFile, WRITE_LOCK_WAIT_MS, fn);
  } catch (e) {
    if (e instanceof LockTimeoutError)
      throw new StoreUnavailableError(
        'Another Mnemo process has been writing to the store for two minutes.',
        {
          cause: e,
        },
      );
    // A full disk while taking the lock (its pid cannot be written) is a store outage, not a bad
    // capture: the capture stays queued and is retried when there is room, never dropped.
    if (isNoSpace(e)) throw writeFailure("the store's write lock", e);
    throw e;
  }
}
