/**
 * Embeddings of short texts that come back across sessions: an agent's stock phrases ("Let me run the
 * tests"), the same commands (`$ git status`, `$ npm test`), a person's "ok go ahead". A backfill of 100
 * generated agent sessions embedded 4,283 texts of which 2,035 were distinct (docs/benchmarks.md,
 * "Capture backfill"); the model is the busiest process of a capture, so each repeat is worth skipping.
 * Bounded (LRU, {@link MAX_TEXTS} texts of at most {@link MAX_CHARS} characters: about 6 MB of 384-dimensional
 * vectors), keyed by the provider's model id and the exact (redacted) text, so a model change never serves
 * a vector of another model. Vectors are read-only to callers.
 */
import { LRUCache } from 'lru-cache';
import type { EmbedOptions, EmbeddingProvider } from './types';

const MAX_TEXTS = 2048;
/** Longer texts rarely repeat word for word; they are embedded every time and not kept. */
const MAX_CHARS = 300;

const caches = new WeakMap<EmbeddingProvider, LRUCache<string, number[]>>();

/** The embeddings of `texts` (in order): short ones this provider embedded recently from the cache, the rest in one call. */
export async function embedTurns(
  provider: EmbeddingProvider,
  texts: string[],
  opts: EmbedOptions = {},
): Promise<number[][]> {
  let cache = caches.get(provider);
  if (!cache) {
    cache = new LRUCache<string, number[]>({ max: MAX_TEXTS });
    caches.set(provider, cache);
  }
  const keyOf = (t: string) => `${provider.modelId}\u0000${t}`;
  const out = new Array<number[] | undefined>(texts.length);
  const missing: number[] = [];
  texts.forEach((t, i) => {
    const hit = t.length <= MAX_CHARS ? cache.get(keyOf(t)) : undefined;
    if (hit) out[i] = hit;
    else missing.push(i);
  });
  if (missing.length) {
    const vectors = await provider.embed(
      missing.map((i) => texts[i]!),
      opts,
    );
    missing.forEach((i, j) => {
      const v = vectors[j];
      if (!v)
        throw new Error(
          `${provider.modelId} returned ${vectors.length} vectors for ${missing.length} texts.`,
        );
      out[i] = v;
      if (texts[i]!.length <= MAX_CHARS) cache.set(keyOf(texts[i]!), v);
    });
  }
  return out as number[][];
}
