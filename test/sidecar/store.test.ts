/** The store against a real Chroma server: dimension checks name both dimensions. */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { DimensionMismatchError } from '../../sidecar/shared/errors';
import { memoryId, type Memory } from '../../sidecar/model';
import { ChromaSupervisor } from '../../sidecar/store/chromaServer';
import { MemoryStore } from '../../sidecar/store/memoryStore';
import { cleanupDataDir, tempDataDir } from '../support/sidecarSession';

const dataDir = tempDataDir();
const supervisor = new ChromaSupervisor({ dataDir });
after(async () => {
  await supervisor.stop();
  cleanupDataDir(dataDir);
});

function mem(text: string, dim: number): Memory {
  const now = new Date().toISOString();
  return {
    id: memoryId('dims', text),
    text,
    category: 'instruction',
    source_type: 'manual',
    project_id: 'dims',
    confidence_score: 0.9,
    is_actionable: false,
    source_ref: [],
    status: 'active',
    created_at: now,
    updated_at: now,
    last_seen_at: now,
    times_seen: 1,
    added_by: 't@ci',
    reason: 'test',
    score: 5,
    embedding_model: 'test',
    embedding_dim: dim,
    use_count: 0,
  };
}

test('a vector of the wrong dimension is refused with both dimensions named, and nothing is written', async () => {
  const store = new MemoryStore(supervisor, dataDir);
  assert.equal(await store.useModel('test-model', 4), true);
  await store.upsert([{ memory: mem('four dims', 4), vector: [1, 0, 0, 0] }]);
  await assert.rejects(store.upsert([{ memory: mem('three dims', 3), vector: [1, 0, 0] }]), (e: unknown) => {
    assert.ok(e instanceof DimensionMismatchError);
    assert.match(e.message, /3-dimensional/);
    assert.match(e.message, /holds 4-dimensional/);
    return true;
  });
  assert.equal(await store.count(), 1);
  assert.equal(
    await store.useModel('other-model', 8),
    false,
    'a different model does not switch the active collection',
  );
});

test('a store opened before another process claimed the collection lists what that process stored', async () => {
  // A sidecar whose model is still loading, and an MCP server that stored an agent's memory meanwhile.
  const dir = tempDataDir();
  const chroma = new ChromaSupervisor({ dataDir: dir });
  try {
    const sidecar = new MemoryStore(chroma, dir);
    const mcp = new MemoryStore(chroma, dir);
    assert.equal(await mcp.useModel('test-model', 4), true);
    await mcp.upsert([{ memory: mem('stored by the MCP server', 4), vector: [0, 1, 0, 0] }]);
    const listed = await sidecar.find(undefined);
    assert.deepEqual(
      listed.map((r) => r.memory.text),
      ['stored by the MCP server'],
      'the review queue shows the agent memory before the sidecar has loaded its model',
    );
    assert.equal(sidecar.active?.model, 'test-model');
  } finally {
    await chroma.stop();
    cleanupDataDir(dir);
  }
});
