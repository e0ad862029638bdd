/** Small vector helpers shared by the embedding providers. */

/** Returns `v / |v|` as plain numbers; a zero vector is returned unchanged (all zeros). */
export function l2normalize(v: ArrayLike<number>): number[] {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = norm > 0 ? v[i]! / norm : 0;
  return out;
}

/** Cosine similarity of two vectors of equal length (need not be normalized). */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** Cosine distance (Chroma's `cosine` space): `1 - cosineSimilarity`. */
export function cosineDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return 1 - cosineSimilarity(a, b);
}

/** Splits `items` into consecutive chunks of at most `size` (size >= 1). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const n = Math.max(1, Math.floor(size));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}

/** Runs `run` over consecutive batches of at most `size` items and concatenates the results, in order. */
export async function inBatches<T, R>(
  items: T[],
  size: number,
  run: (batch: T[]) => Promise<R[]>,
): Promise<R[]> {
  const out: R[] = [];
  for (const batch of chunk(items, size)) out.push(...(await run(batch)));
  return out;
}
