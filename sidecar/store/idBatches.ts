/**
 * The most ids one Chroma request names. Chroma's SQLite refuses a statement of more than 32,766
 * variables: a lookup of the turns of a 33,000-message transcript by all their ids at once failed with
 * "too many SQL variables" (after its memories were stored). Every get, update and delete by ids goes in
 * batches of this many ({@link inIdBatches}).
 */
export const IDS_PER_REQUEST = 1000;

/** Runs `run` over consecutive batches of at most {@link IDS_PER_REQUEST} items, results in order. */
export async function inIdBatches<T, R = never>(
  items: readonly T[],
  run: (batch: T[]) => Promise<R[] | void>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += IDS_PER_REQUEST) {
    const r = await run(items.slice(i, i + IDS_PER_REQUEST));
    if (r) out.push(...r);
  }
  return out;
}
