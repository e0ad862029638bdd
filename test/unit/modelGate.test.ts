import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { createLogger, ModelGate } from '../../sidecar/core';
import type { EmbeddingProvider } from '../../sidecar/embed/types';
import type { MemoryStore } from '../../sidecar/store/memoryStore';

// The model gate in front of the embedding model: a request that arrives while the model loads waits for
// that load — the first one, and the retry a minute after a failed one — and never runs without a model.

/** A model whose loads fail until `working` is set; each load takes a moment (a real model takes ~1 s). */
function flakyModel() {
  const state = { working: false, loads: 0 };
  const embedder = {
    modelId: 'test-model',
    dimension: () => 3,
    ready: async () => {
      state.loads++;
      await new Promise((r) => setImmediate(r));
      if (!state.working) throw new Error('the model folder is missing');
    },
  } as unknown as EmbeddingProvider;
  const store = { useModel: async () => true, active: undefined } as unknown as MemoryStore;
  return { state, embedder, store };
}

test('a request during the first load waits for it, and no second load starts', async () => {
  const { state, embedder, store } = flakyModel();
  state.working = true;
  const gate = new ModelGate(
    embedder,
    store,
    createLogger(() => undefined),
    () => undefined,
  );
  void gate.loadOnceOnly(); // the sidecar's start
  await gate.require(); // a request arriving meanwhile
  assert.equal(gate.ready, true);
  assert.equal(state.loads, 1);
  gate.close();
});

test('a request during the retry after a failed load waits for the retry, not for nothing', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { state, embedder, store } = flakyModel();
    const gate = new ModelGate(
      embedder,
      store,
      createLogger(() => undefined),
      () => undefined,
    );
    await gate.loadOnceOnly();
    await assert.rejects(() => gate.require(), /the model folder is missing/);
    state.working = true; // the user put the model back
    mock.timers.tick(60_000); // the retry starts loading
    assert.equal(gate.state, 'loading');
    await gate.require(); // waits for the retry instead of running without a model
    assert.equal(gate.ready, true);
    assert.equal(state.loads, 2);
    gate.close();
  } finally {
    mock.timers.reset();
  }
});
