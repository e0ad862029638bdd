/**
 * Query embeddings of recent questions, so an agent that asks what it asked before (every turn of a chat
 * re-asks the same context questions) does not wait for the model again. Bounded (LRU, 512 questions:
 * about 1 MB for 384-dimensional vectors) and keyed by the provider's model id and the exact (redacted)
 * question, so a model change never serves a vector of another model. Vectors are read-only to callers.
 */
import { LRUCache } from 'lru-cache';
import type { EmbeddingProvider } from './types';

const MAX_QUESTIONS = 512;

const caches = new WeakMap<EmbeddingProvider, LRUCache<string, number[]>>();

/** The embedding of one question, from the cache when this provider embedded it recently. */
export async function embedQuery(provider: EmbeddingProvider, text: string): Promise<number[]> {
  let cache = caches.get(provider);
  if (!cache) {
    cache = new LRUCache<string, number[]>({ max: MAX_QUESTIONS });
    caches.set(provider, cache);
  }
  const key = `${provider.modelId}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const [vector] = await provider.embed([text]);
  if (!vector) throw new Error(`${provider.modelId} returned no vector for the question.`);
  cache.set(key, vector);
  return vector;
}
