/**
 * Re-embedding: every memory is embedded with the configured model into a new collection (keyed by
 * model + dimension), and the store switches over only when all are copied. Captures stay queued
 * meanwhile. On cancel or failure the partial collection is dropped and the store is as it was.
 */
import type { Core } from './core';
import { checkCancelled, EmbeddingError, InvalidInputError } from './shared/errors';
import type { ProgressParams, ReembedParams, ReembedResult } from './protocol';
import { collectionNameFor, type ActiveCollection } from './store/storeState';

const BATCH = 64;

export class Reembedder {
  private running = false;

  constructor(
    private readonly core: Core,
    private readonly progress: (p: ProgressParams) => void,
    /** Called after the switch: the queue may drain again. */
    private readonly onSwitched: () => void,
  ) {}

  async reembed(p: ReembedParams = {}, token?: { isCancellationRequested: boolean }): Promise<ReembedResult> {
    const { core } = this;
    const { store, model: gate } = core;
    if (this.running) throw new InvalidInputError('A re-embedding is already running.');
    if (gate.state !== 'ready') await gate.loadOnceOnly();
    if (gate.state !== 'ready') throw new EmbeddingError(gate.error);
    const dim = core.embedding.dimension();
    const model = core.embedding.modelId;
    const previous = store.active;
    if (previous && previous.model === model && previous.dim === dim) return { migrated: 0, model, dim };
    const target: ActiveCollection = { name: collectionNameFor(model, dim), model, dim };
    const progress = (message: string, percent?: number) =>
      p.progress_token && this.progress({ token: p.progress_token, message, percent });
    this.running = true;
    try {
      await store.dropCollection(target.name); // leftovers of an abandoned run
      await store.prepare(target);
      const all = previous ? await store.find(undefined) : [];
      progress(`Re-embedding ${all.length} memories with ${model}`, 0);
      let done = 0;
      for (let i = 0; i < all.length; i += BATCH) {
        checkCancelled(token);
        const batch = all.slice(i, i + BATCH).map((r) => r.memory);
        const vectors = await core.embedding.embed(
          batch.map((m) => m.text),
          { bulk: true },
        );
        await store.upsert(
          batch.map((m, j) => ({
            memory: { ...m, embedding_model: model, embedding_dim: dim },
            vector: vectors[j],
          })),
          target,
        );
        done += batch.length;
        progress(`Re-embedded ${done} of ${all.length} memories`, Math.round((done / all.length) * 100));
      }
      checkCancelled(token);
      await store.switchTo(target);
      gate.matched();
      core.audit.append([
        {
          at: core.now(),
          action: 'update',
          by: core.config.user,
          changes: {
            embedding_model: [previous?.model ?? null, model],
            embedding_dim: [previous?.dim ?? null, dim],
          },
          note: `re-embedded ${done} memories into ${target.name}${previous ? `; ${previous.name} kept` : ''}`,
        },
      ]);
      core.log.info(`Re-embedded ${done} memories with ${model}; ${target.name} is now active.`);
      progress(`Re-embedded ${done} memories`, 100);
      core.notifyChanged([...new Set(all.map((r) => r.memory.project_id))]);
      this.onSwitched();
      return { migrated: done, model, dim, previous: previous?.name };
    } catch (e) {
      await store.dropCollection(target.name).catch(() => undefined);
      throw e;
    } finally {
      this.running = false;
    }
  }
}
